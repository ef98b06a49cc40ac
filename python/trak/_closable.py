"""Closable: `with` support for the objects that hold traces (TraceProcessor,
BatchTraceProcessor): the block's end calls close(); an object dropped unclosed is closed."""


class Closable:
    def close(self):
        raise NotImplementedError

    def _open(self):
        """True while there is something for close() to free."""
        raise NotImplementedError

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            if self._open():
                self.close()
        except AttributeError:  # __init__ failed before the fields existed
            pass
