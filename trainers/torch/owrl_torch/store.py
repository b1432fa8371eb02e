"""The trainer's state folder: every version it answered with, stored so that nothing answered is lost.

Layout under the state folder::

    versions/v<N>/                   the artifact of version N (its folder is the artifact URI)
        adapter_config.json, ...     what the engine loads (written by the caller)
        trainer_state/optimizer.pt   optimizer state the next update continues from
        manifest.json                sha256 and size of every file above
        trainer_state/result.pb      the TrainResult answered for it (absent for version 0)
    versions/.tmp-v<N>-<nonce>/      a version being written (removed at open: a half-written one)
    versions/.drop-v<N>-<nonce>/     a version being dropped (removed at open)

A version appears only by an atomic rename of its fully written, fsynced folder, so a process
killed at any instant leaves either the whole version or none of it. The artifact's sha256 is the
sha256 of its manifest.json, which lists the sha256 of every other file, so it covers every file of
the version. The result file cannot be in the manifest (it carries the sha256), and is checked by
decoding instead.

The replay map ``(batch_id, base_version) -> TrainResult`` is rebuilt from the stored results:
version N was trained from base N-1, so each result names its own key.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import secrets
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

from owrl_torch.proto.owrl.v1 import policy_pb2, trainer_pb2

log = logging.getLogger("owrl_torch.store")

MANIFEST = "manifest.json"
STATE_DIR = "trainer_state"
RESULT = f"{STATE_DIR}/result.pb"
OPTIMIZER = f"{STATE_DIR}/optimizer.pt"
SCHEMA_VERSION = 1
_VERSION_DIR = re.compile(r"^v(\d+)$")

# Fault injection for the kill-while-writing tests: seconds to sleep after an update's version
# (not version 0) is written and before it is renamed into place (the window a SIGKILL must not
# corrupt).
FAULT_PAUSE_ENV = "OWRL_TORCH_FAULT_PAUSE_BEFORE_COMMIT_S"


class StoreError(Exception):
    """The state folder holds something this trainer cannot use (named in the message)."""


@dataclass(frozen=True)
class ArtifactInfo:
    """What the answer's PolicyArtifact says besides what the store computes (uri, sha256, bytes)."""

    kind: str
    base_model: str
    run_id: str = ""
    temperature: float = 1.0
    serve_prefix: str = "owrl"


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some filesystems refuse fsync on a directory; the rename is still atomic
    finally:
        os.close(fd)


def _files(folder: Path) -> List[str]:
    out = []
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            out.append(p.relative_to(folder).as_posix())
    return out


def write_manifest(folder: Path, version: int, kind: str) -> Tuple[str, int]:
    """Writes manifest.json over every file of ``folder`` (but the answer); returns (its sha256, bytes of the files)."""
    files: Dict[str, Dict[str, object]] = {}
    total = 0
    for rel in _files(folder):
        if rel in (MANIFEST, RESULT):
            continue
        p = folder / rel
        size = p.stat().st_size
        files[rel] = {"sha256": sha256_file(p), "bytes": size}
        total += size
    body = json.dumps({"version": version, "kind": kind, "files": files}, indent=1, sort_keys=True).encode()
    (folder / MANIFEST).write_bytes(body)
    return hashlib.sha256(body).hexdigest(), total


def verify_version(folder: Path) -> str:
    """Checks every file against the manifest; returns the manifest's sha256 or raises StoreError naming the file."""
    mpath = folder / MANIFEST
    if not mpath.is_file():
        raise StoreError(f"{folder} has no {MANIFEST}")
    body = mpath.read_bytes()
    try:
        manifest = json.loads(body)
        files = manifest["files"]
    except (ValueError, KeyError) as e:
        raise StoreError(f"{mpath} is not a manifest: {e}") from e
    for rel, want in files.items():
        p = folder / rel
        if not p.is_file():
            raise StoreError(f"{folder}: {rel} listed in the manifest is missing")
        if p.stat().st_size != want["bytes"] or sha256_file(p) != want["sha256"]:
            raise StoreError(f"{folder}: {rel} does not match its sha256 in the manifest")
    return hashlib.sha256(body).hexdigest()


class VersionStore:
    """The versions a trainer holds, written atomically, with the replay map of the answers."""

    def __init__(self, root: Path, keep: int = 5, artifact_url: Optional[str] = None, verify: bool = True) -> None:
        if keep < 2:
            raise ValueError(f"keep must be at least 2 (the contract asks for the last two versions), got {keep}")
        self.root = Path(root)
        self.dir = self.root / "versions"
        self.keep = keep
        self.artifact_url = artifact_url.rstrip("/") + "/" if artifact_url else None
        self.dir.mkdir(parents=True, exist_ok=True)
        self._results: Dict[int, trainer_pb2.TrainResult] = {}
        self._recover(verify)

    # --- reading -------------------------------------------------------------------------------

    def versions(self) -> List[int]:
        """Versions held, oldest first."""
        out = []
        for p in self.dir.iterdir():
            m = _VERSION_DIR.match(p.name)
            if m and p.is_dir():
                out.append(int(m.group(1)))
        return sorted(out)

    @property
    def latest(self) -> int:
        vs = self.versions()
        return vs[-1] if vs else 0

    def has(self, version: int) -> bool:
        return (self.dir / f"v{version}").is_dir()

    def path(self, version: int) -> Path:
        return self.dir / f"v{version}"

    def replay(self, batch_id: str, base_version: int) -> Optional[trainer_pb2.TrainResult]:
        """The result already answered for this key (as first answered, replayed unset), or None."""
        r = self._results.get(base_version + 1)
        if r is not None and r.batch_id == batch_id:
            out = trainer_pb2.TrainResult()
            out.CopyFrom(r)
            return out
        return None

    def uri(self, version: int) -> str:
        if self.artifact_url:
            return f"{self.artifact_url}v{version}"
        return self.path(version).resolve().as_uri()

    # --- writing -------------------------------------------------------------------------------

    def drop_after(self, version: int) -> List[int]:
        """Drops every version newer than ``version``, newest first (a restore of an older base)."""
        dropped = []
        for v in reversed(self.versions()):
            if v <= version:
                break
            self._drop(v)
            dropped.append(v)
        return dropped

    def _drop(self, version: int) -> None:
        src = self.path(version)
        aside = self.dir / f".drop-v{version}-{secrets.token_hex(4)}"
        os.rename(src, aside)
        _fsync_dir(self.dir)
        self._results.pop(version, None)
        shutil.rmtree(aside, ignore_errors=True)

    def commit_initial(self, write: Callable[[Path], None], kind: str) -> Path:
        """Stores version 0 (the initial policy: its weights and empty optimizer) once."""
        if self.has(0):
            return self.path(0)
        self._write(0, write, lambda _sha, _bytes: None, kind)
        return self.path(0)

    def commit(
        self,
        version: int,
        write: Callable[[Path], None],
        result: trainer_pb2.TrainResult,
        info: ArtifactInfo,
    ) -> trainer_pb2.TrainResult:
        """Writes version ``version`` (files by ``write``, then manifest and answer) and renames it into place.

        ``result`` is completed with its artifact (uri, sha256 of the manifest, bytes, serve name)
        and returned as stored. A version already there (a retrained version number after a
        restore) is replaced: the caller dropped it first, so this only happens after a crash.
        """

        def finish(sha: str, total: int) -> bytes:
            a = policy_pb2.PolicyArtifact(
                schema_version=SCHEMA_VERSION,
                version=version,
                uri=self.uri(version),
                sha256=sha,
                bytes=total,
                kind=info.kind,
                run_id=info.run_id,
                created_at_ms=int(time.time() * 1000),
                temperature=info.temperature,
                # a version number trained twice (after a restore) gets another name: engines
                # answer "already loaded" for a name they hold, so the name carries the content
                serve_name=f"{info.serve_prefix}-v{version}-{sha[:8]}",
                base_model=info.base_model,
            )
            result.artifact.CopyFrom(a)
            result.version = version
            result.replayed = False
            return result.SerializeToString()

        self._write(version, write, finish, info.kind)
        stored = self._load_result(version)
        self._prune()
        return stored

    def _write(self, version: int, write: Callable[[Path], None], finish: Callable[[str, int], Optional[bytes]], kind: str) -> None:
        tmp = self.dir / f".tmp-v{version}-{secrets.token_hex(4)}"
        tmp.mkdir()
        try:
            (tmp / STATE_DIR).mkdir(exist_ok=True)
            write(tmp)
            sha, total = write_manifest(tmp, version, kind)
            answer = finish(sha, total)
            if answer is not None:
                (tmp / RESULT).write_bytes(answer)
            for rel in _files(tmp):
                _fsync_file(tmp / rel)
            for d in sorted({(tmp / rel).parent for rel in _files(tmp)}, key=lambda p: len(p.parts), reverse=True):
                _fsync_dir(d)
            pause = float(os.environ.get(FAULT_PAUSE_ENV, "0") or 0)
            if pause > 0 and version > 0:
                print(f"owrl-torch: fault pause before committing v{version}", flush=True)
                time.sleep(pause)
            if self.has(version):
                self._drop(version)
            os.rename(tmp, self.path(version))
            _fsync_dir(self.dir)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise

    def _load_result(self, version: int) -> trainer_pb2.TrainResult:
        p = self.path(version) / RESULT
        r = trainer_pb2.TrainResult()
        try:
            r.ParseFromString(p.read_bytes())
        except Exception as e:  # a damaged file of any kind: the version is not usable
            raise StoreError(f"{p} is not a TrainResult: {e}") from e
        if r.version != version or not r.HasField("artifact"):
            raise StoreError(f"{p} answers version {r.version}, stored as v{version}")
        self._results[version] = r
        out = trainer_pb2.TrainResult()
        out.CopyFrom(r)
        return out

    def _prune(self) -> None:
        """Keeps version 0 and the newest ``keep`` versions."""
        vs = [v for v in self.versions() if v != 0]
        for v in vs[: max(0, len(vs) - self.keep)]:
            self._drop(v)

    def _recover(self, verify: bool) -> None:
        """Removes what a killed process left half-done and loads the answers of the versions held."""
        for p in self.dir.iterdir():
            if p.name.startswith(".tmp-") or p.name.startswith(".drop-"):
                log.warning("removing %s left by an interrupted write", p.name)
                shutil.rmtree(p, ignore_errors=True)
        for v in self.versions():
            folder = self.path(v)
            try:
                if verify:
                    sha = verify_version(folder)
                if v != 0:
                    r = self._load_result(v)
                    if verify and r.artifact.sha256 != sha:
                        raise StoreError(f"{folder / RESULT} names sha256 {r.artifact.sha256}, the manifest's is {sha}")
            except StoreError as e:
                log.error("dropping v%d from the state folder: %s", v, e)
                self._drop(v)
