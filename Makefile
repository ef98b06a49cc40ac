# Thin wrapper around CMake. `make` builds into build/; `make test` runs every suite:
# the plain build, AddressSanitizer+UBSan, ThreadSanitizer on the concurrency tests,
# and the libFuzzer targets for a few seconds each. `make install` installs under PREFIX;
# `make package` writes build/trak_<version>_amd64.deb.
JOBS ?= 2
PREFIX ?= /usr/local
CMAKE_FLAGS ?=
CTEST = ctest --output-on-failure --no-tests=error -j$(JOBS)

.PHONY: all deps build demo test test-plain test-asan test-tsan test-fuzz bench clean format \
        install package

all: build

deps:
	@scripts/deps.sh

build: deps
	cmake -S . -B build -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null
	cmake --build build -j$(JOBS)

demo: build
	scripts/demo.sh

test: test-plain test-asan test-tsan test-fuzz

test-plain: deps
	cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DTRAK_WERROR=ON $(CMAKE_FLAGS) >/dev/null
	cmake --build build -j$(JOBS)
	cd build && $(CTEST)

test-asan: deps
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DTRAK_WERROR=ON \
	  -DTRAK_SANITIZE=address,undefined $(CMAKE_FLAGS) >/dev/null
	cmake --build build-asan -j$(JOBS)
	cd build-asan && $(CTEST) -LE no-asan

test-tsan: deps
	cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Debug -DTRAK_WERROR=ON \
	  -DTRAK_SANITIZE=thread -DTRAK_TESTS_ONLY_CONCURRENCY=ON $(CMAKE_FLAGS) >/dev/null
	cmake --build build-tsan -j$(JOBS)
	cd build-tsan && $(CTEST) -L concurrency

test-fuzz: deps
	CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DTRAK_WERROR=ON \
	  -DTRAK_FUZZ=ON $(CMAKE_FLAGS) >/dev/null
	cmake --build build-fuzz -j$(JOBS)
	cd build-fuzz && $(CTEST) -L fuzz

bench: build
	scripts/bench.sh

install: build
	cmake --install build --prefix $(PREFIX)

package: build
	cd build && cpack

clean:
	rm -rf build build-asan build-tsan build-fuzz

format: deps
	git ls-files '*.c' '*.h' '*.cpp' | xargs clang-format -i
