"""Reading a saved function's files as untrusted input: regular files inside the directory, sizes checked
before anything is read or inflated.

- A file is opened without following a symlink at its last component and without blocking (a FIFO or a
  device would hang ``read``), then must be a regular file (``fstat``) of at most ``MAX_DOCUMENT_BYTES``;
  its real path must lie inside the saved directory.
- ``constants.npz`` is a zip of ``.npy`` members. Nothing is inflated when it is opened: an ``ArrayStore``
  reads a member only when the graph asks for it, and first checks the member's ``.npy`` header (dtype
  numeric or bool, the declared shape's size at most ``MAX_ARRAY_BYTES``, the zip's declared size equal to
  header + data, so inflating stops there), and that all arrays read so far stay within
  ``max(INFLATE_FLOOR_BYTES, MAX_INFLATE_RATIO * compressed file size)``: a small file cannot turn
  into gigabytes, and an array the graph never uses is never inflated at all.

>>> import tempfile, os, numpy as np
>>> directory = tempfile.mkdtemp()
>>> np.savez_compressed(os.path.join(directory, "c.npz"), a0=np.arange(3))
>>> store = ArrayStore(open_regular(directory, "c.npz", "constants_file"), "c.npz")
>>> "a0" in store, store["a0"]
(True, array([0, 1, 2]))
"""
from __future__ import annotations

import os
import stat
import zipfile
import zlib
from pathlib import Path
from typing import IO, Dict, Iterator

import numpy as np

from runtime.core.errors import LoadError

MAX_DOCUMENT_BYTES = 256 << 20      # graph.json
MAX_ARRAY_BYTES = 4 << 30           # one constant or variable value
INFLATE_FLOOR_BYTES = 64 << 20      # always allowed, whatever the compression ratio
MAX_INFLATE_RATIO = 200             # beyond the floor: inflated bytes per byte of constants.npz
_MAX_HEADER_BYTES = 1 << 16


def check_file_name(name: object, field: str) -> str:
    """``name`` if it is a plain file name (no directory part, no NUL); LoadError naming ``field`` else."""
    if not isinstance(name, str) or not name or len(name) > 255 or "\x00" in name or name in (".", "..") \
            or "/" in name or "\\" in name or os.path.basename(name) != name:
        raise LoadError(f"field {field!r} must be the plain name of a file in the saved directory, got "
                        f"{name!r:.200}: a path outside the saved directory (or into a subdirectory) is refused")
    return name


def open_regular(directory: os.PathLike, name: str, field: str) -> IO[bytes]:
    """``directory/name`` opened for reading, if it is a regular file inside ``directory``; else LoadError."""
    directory = Path(directory)
    path = directory / check_file_name(name, field)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    try:
        descriptor = os.open(path, flags)
    except FileNotFoundError:
        raise LoadError(f"{path} is missing; a saved function needs both graph.json and its constants") from None
    except OSError as error:  # ELOOP: a symlink; EACCES, ...
        if os.path.islink(path):
            raise LoadError(f"{path} is a symlink; refusing to follow it (it may lead outside the saved "
                            "directory): copy the file itself into the directory") from None
        raise LoadError(f"{path} cannot be read as a regular file of the saved directory ({error.strerror})") \
            from None
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise LoadError(f"{path} is not a regular file (a FIFO, device or directory); refusing to read it")
        if info.st_size > MAX_DOCUMENT_BYTES and name.endswith(".json"):
            raise LoadError(f"{path} is {info.st_size} bytes, more than the {MAX_DOCUMENT_BYTES} a saved graph "
                            "may have")
        real = Path(os.path.realpath(path))
        if not real.is_relative_to(Path(os.path.realpath(directory))):
            raise LoadError(f"{path} is outside the saved directory; refusing to read it")
        if hasattr(os, "set_blocking"):
            os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def read_document_bytes(handle: IO[bytes]) -> bytes:
    with handle:
        data = handle.read(MAX_DOCUMENT_BYTES + 1)
    if len(data) > MAX_DOCUMENT_BYTES:
        raise LoadError(f"graph.json is more than {MAX_DOCUMENT_BYTES} bytes")
    return data


class ArrayStore:
    """The arrays of a constants archive, read on first use with their sizes checked first (a Mapping)."""

    def __init__(self, handle: IO[bytes], path: object = "constants"):
        self.path = path
        self.compressed_bytes = os.fstat(handle.fileno()).st_size
        try:
            self._zip = zipfile.ZipFile(handle)
            members = self._zip.infolist()
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError) as error:
            handle.close()
            raise LoadError(f"{self.path} is damaged or not a numpy archive ({type(error).__name__}: {error})") \
                from None
        self._handle = handle
        self._members: Dict[str, zipfile.ZipInfo] = {}
        for member in members:
            if member.filename.endswith(".npy"):
                self._members[member.filename[:-4]] = member
        self._cache: Dict[str, np.ndarray] = {}
        self.inflated_bytes = 0

    def close(self) -> None:
        self._zip.close()
        self._handle.close()

    def __enter__(self) -> "ArrayStore":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and key in self._members

    def __iter__(self) -> Iterator[str]:
        return iter(self._members)

    def __len__(self) -> int:
        return len(self._members)

    def __getitem__(self, key: str) -> np.ndarray:
        if key not in self._cache:
            if key not in self._members:
                raise KeyError(key)
            self._cache[key] = self._read(key, self._members[key])
        return self._cache[key]

    def _read(self, key: str, member: zipfile.ZipInfo) -> np.ndarray:
        where = f"{self.path}, array {key!r}"
        try:
            with self._zip.open(member) as stream:
                version = np.lib.format.read_magic(stream)
                if version not in ((1, 0), (2, 0), (3, 0)):
                    raise LoadError(f"{where}: unknown .npy format version {version}")
                reader = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                          else np.lib.format.read_array_header_2_0)
                try:
                    shape, fortran_order, dtype = reader(stream, max_header_size=_MAX_HEADER_BYTES)
                except TypeError:  # numpy < 1.24 has no max_header_size (and reads at most 64 KiB anyway)
                    shape, fortran_order, dtype = reader(stream)
                header_bytes = stream.tell()
                if dtype.kind not in "biuf" or dtype.hasobject or dtype.fields is not None or dtype.subdtype:
                    raise LoadError(f"{where}: dtype {dtype} is not a numeric or bool dtype")
                count = 1
                for size in shape:
                    count *= size
                nbytes = count * dtype.itemsize
                if nbytes > MAX_ARRAY_BYTES:
                    raise LoadError(f"{where}: its header declares shape {shape} of {dtype} ({nbytes} bytes), more "
                                    f"than the {MAX_ARRAY_BYTES} bytes an array of a saved function may have")
                if member.file_size != header_bytes + nbytes:
                    raise LoadError(f"{where}: the archive declares {member.file_size} bytes, its header "
                                    f"{header_bytes + nbytes}; the file was edited or damaged")
                budget = max(INFLATE_FLOOR_BYTES, MAX_INFLATE_RATIO * self.compressed_bytes)
                if self.inflated_bytes + nbytes > budget:
                    raise LoadError(f"{where}: the arrays would inflate to more than {budget} bytes from a "
                                    f"{self.compressed_bytes}-byte archive (more than {MAX_INFLATE_RATIO}x); "
                                    "refusing a decompression bomb")
                self.inflated_bytes += nbytes
                raw = stream.read(nbytes)
                if len(raw) != nbytes:
                    raise LoadError(f"{where}: truncated")
        except LoadError:
            raise
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, zlib.error, SyntaxError, TypeError,
                NotImplementedError) as error:
            raise LoadError(f"{where} is damaged ({type(error).__name__}: {error})") from None
        array = np.frombuffer(raw, dtype=dtype).reshape(shape, order="F" if fortran_order else "C")
        if dtype.kind == "b":  # any nonzero byte is True, as numpy's own bool ops assume 0 or 1
            return array.view(np.uint8) != 0
        return array.astype(dtype.newbyteorder("="), order="C")  # a writeable copy in native byte order
