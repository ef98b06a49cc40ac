
6@P’/

arch_timer
	acpi
dup

noid
@P’
		again
eth0