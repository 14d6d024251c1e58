"""Writing the output file of a host tool (scripts/bareperf-report, scripts/bareperf-asm).

An output that is a regular file is replaced atomically through a temporary file that
mkstemp makes beside it (never a predictable name), keeping its mode, so a failed run leaves
the old file whole; a symlink is followed and its target replaced the same way; a FIFO,
device or terminal (/dev/stdout included) is written through, as by any program, and is
never replaced by a file. A directory is an error before anything is made. An output that is
one of the tool's inputs is refused before anything is written (input_overwritten).
"""

import errno
import os
import shutil
import stat
import tempfile

# Linux's limit on links followed in one lookup (MAXSYMLINKS).
MAX_LINKS = 40


def current_umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def output_target(path):
    """Where and how an output is written: (file, True) to replace the regular file `file`
    (or create it) atomically, or (path, False) to write through `path` as it stands.
    Symlinks are followed to their target, as open() follows them. Anything that is not a
    regular file (FIFO, device, terminal, socket) is written through, as is a link that
    lives in /proc: /dev/stdout -> /proc/self/fd/1 names a file this process has open, and
    replacing that file would hide the output from whoever reads the descriptor.
    Raises OSError: EISDIR for a directory, ELOOP for too many links."""
    current = path
    for _ in range(MAX_LINKS):
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            return current, True
        if stat.S_ISDIR(st.st_mode):
            raise OSError(errno.EISDIR, os.strerror(errno.EISDIR))
        if not stat.S_ISLNK(st.st_mode):
            return (current, True) if stat.S_ISREG(st.st_mode) else (path, False)
        directory = os.path.dirname(current) or "."
        if os.path.realpath(directory).startswith("/proc/"):
            return path, False
        current = os.path.join(directory, os.readlink(current))
    raise OSError(errno.ELOOP, os.strerror(errno.ELOOP))


def input_overwritten(output, inputs):
    """The first of `inputs` (paths; '-' is standard input and skipped) that writing
    `output` would overwrite: the same regular file, reached through any links or hard
    links. None when there is none. An input or output that cannot be examined is none."""
    try:
        out = os.stat(output)
    except OSError:
        return None
    if not stat.S_ISREG(out.st_mode):
        return None
    for path in inputs:
        if path is None or path == "-":
            continue
        try:
            st = os.stat(path)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode) and (st.st_dev, st.st_ino) == (out.st_dev, out.st_ino):
            return path
    return None


def write_output(path, fill, prefix):
    """Write one output; fill(tmp) writes its whole content into the file named tmp.
    A regular file is replaced atomically through a mkstemp file beside it (named
    PREFIX...), so a failure leaves the old content whole; it keeps its mode (a new file
    gets 0666 less the umask). A FIFO or device gets the finished content written through.
    Raises OSError; nothing the call made is left behind."""
    final, replace = output_target(path)
    if not replace:
        with tempfile.TemporaryDirectory(prefix=prefix) as scratch:
            tmp = os.path.join(scratch, "output")
            fill(tmp)
            with open(tmp, "rb") as src, open(path, "wb") as dst:
                shutil.copyfileobj(src, dst)
        return
    try:
        mode = stat.S_IMODE(os.stat(final).st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~current_umask()
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(final) or ".", prefix="." + prefix)
    try:
        os.fchmod(fd, mode)
        os.close(fd)
        fd = None
        fill(tmp)
        os.replace(tmp, final)
    except BaseException:
        if fd is not None:
            os.close(fd)
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_bytes(path, data, prefix):
    """write_output with content that is already in memory."""
    def fill(tmp):
        with open(tmp, "wb") as f:
            f.write(data)
    write_output(path, fill, prefix)


# A shell's status for a process that SIGPIPE ended (128 + 13), as for any tool whose
# reader went away (`| head`).
BROKEN_PIPE_STATUS = 141


def exit_status(main, *args):
    """main(*args)'s exit status, with standard output flushed. When its reader has gone
    away (a pipe closed early), the status is BROKEN_PIPE_STATUS and nothing more is said:
    no traceback, and standard output points at /dev/null so that the interpreter's own
    flush at exit cannot fail again."""
    import sys
    try:
        status = main(*args)
        sys.stdout.flush()
        return status
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return BROKEN_PIPE_STATUS
