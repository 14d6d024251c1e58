"""Run one of scripts/'s Python tools many times without paying for a new interpreter each
time (a start and its imports cost about 0.05 s of CPU; the tests run the tools some 200
times).

The tool's file is compiled, and its top level (imports, constants, functions) executed
once here, under another name than __main__, so its main() does not run. Each run is then
a fork of this process that executes the tool as __main__ with the given arguments, on
fresh pipes for stdin, stdout and stderr, in the given folder and environment: a process of
its own, as with subprocess, so nothing one run changes reaches the next. A run returns
what subprocess.run would: the exit status and the bytes (or text) of stdout and stderr.

Where the environment asked for differs from this one in what sets the interpreter's own
behaviour (locale, PYTHON* variables), a run takes a real interpreter instead."""
import atexit
import io
import locale
import os
import selectors
import signal
import subprocess
import sys
import time
import traceback

PYTHON = "/usr/bin/python3"


def _interpreter_vars(env):
    return {k: v for k, v in env.items() if k.startswith(("PYTHON", "LC_")) or k in ("LANG", "LANGUAGE")}


class Tool:
    def __init__(self, path):
        self.path = os.path.abspath(path)
        with open(self.path, "rb") as f:
            self.code = compile(f.read(), self.path, "exec")
        preload = {"__name__": "forkrun_preload", "__file__": self.path, "__builtins__": __builtins__}
        saved_path = list(sys.path)
        exec(self.code, preload)            # its imports land in sys.modules
        sys.path[:] = saved_path
        # the interpreter's stdio set-up, which the same environment gives a new one
        std = sys.__stdout__ or sys.stdout
        self.encoding = getattr(std, "encoding", None) or locale.getpreferredencoding(False)
        self.errors = getattr(std, "errors", None) or "strict"
        self.in_errors = getattr(sys.__stdin__, "errors", None) or self.errors

    def run(self, args, stdin=None, cwd=None, env=None, timeout=120, text=False):
        """(exit status, stdout, stderr) of the tool run with args; stdin is bytes or text."""
        if env is not None and _interpreter_vars(env) != _interpreter_vars(os.environ):
            p = subprocess.run([PYTHON, self.path] + list(args), input=stdin, cwd=cwd, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout, text=text)
            return p.returncode, p.stdout, p.stderr
        if isinstance(stdin, str):
            stdin = stdin.encode(self.encoding)
        fds = [os.pipe() for _ in range(3)]
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            self._child(fds, args, cwd, env)
        for fd in (fds[0][0], fds[1][1], fds[2][1]):
            os.close(fd)
        out, err = self._talk(pid, fds[0][1], fds[1][0], fds[2][0], stdin or b"", timeout)
        _, status = os.waitpid(pid, 0)
        rc = os.waitstatus_to_exitcode(status)
        if text:
            out, err = out.decode(self.encoding), err.decode(self.encoding)
        return rc, out, err

    def _child(self, fds, args, cwd, env):
        code = 1
        try:
            os.dup2(fds[0][0], 0)
            os.dup2(fds[1][1], 1)
            os.dup2(fds[2][1], 2)
            for r, w in fds:
                os.close(r)
                os.close(w)
            atexit._clear()     # this process's exit handlers (its temporary folders) are not the run's
            if cwd:
                os.chdir(cwd)
            if env is not None:
                os.environ.clear()
                os.environ.update(env)
            # as the interpreter sets them up for pipes
            sys.stdin = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)),
                                         encoding=self.encoding, errors=self.in_errors)
            sys.stdout = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "w", closefd=False)),
                                          encoding=self.encoding, errors=self.errors)
            sys.stderr = io.TextIOWrapper(io.BufferedWriter(io.FileIO(2, "w", closefd=False)),
                                          encoding=self.encoding, errors="backslashreplace",
                                          line_buffering=True)
            sys.argv = [self.path] + [os.fsdecode(a) for a in args]    # bytes as the interpreter decodes argv
            try:
                exec(self.code, {"__name__": "__main__", "__file__": self.path, "__builtins__": __builtins__})
                code = 0
            except SystemExit as e:
                if e.code is None:
                    code = 0
                elif isinstance(e.code, int):
                    code = e.code
                else:
                    print(e.code, file=sys.stderr)
                    code = 1
            except BaseException:
                traceback.print_exc()
                code = 1
            atexit._run_exitfuncs()
            try:
                sys.stdout.flush()
            except OSError:
                code = 120                  # what the interpreter gives when it cannot flush
            sys.stderr.flush()
        finally:
            os._exit(code & 0xff)

    @staticmethod
    def _talk(pid, stdin_w, out_r, err_r, data, timeout):
        sel = selectors.DefaultSelector()
        bufs = {out_r: [], err_r: []}
        for fd in bufs:
            sel.register(fd, selectors.EVENT_READ)
        if data:
            os.set_blocking(stdin_w, False)
            sel.register(stdin_w, selectors.EVENT_WRITE)
        else:
            os.close(stdin_w)
        deadline = time.monotonic() + timeout
        while sel.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                raise subprocess.TimeoutExpired(["forkrun"], timeout)
            for key, _ in sel.select(left):
                fd = key.fd
                if fd == stdin_w:
                    try:
                        n = os.write(fd, data)
                    except BrokenPipeError:
                        n = len(data)
                    data = data[n:]
                    if not data:
                        sel.unregister(fd)
                        os.close(fd)
                    continue
                chunk = os.read(fd, 65536)
                if chunk:
                    bufs[fd].append(chunk)
                else:
                    sel.unregister(fd)
                    os.close(fd)
        return b"".join(bufs[out_r]), b"".join(bufs[err_r])
