"""The one git wrapper: every git call of `install` goes through `Git`.

Non-interactive (`GIT_TERMINAL_PROMPT=0`), `-c safe.directory=<path>` because container
checkouts are often owned by another user, inherited `GIT_*` variables that would point git
at another repository stripped, refs always after `--`. Probes are named `try_*` and return
booleans; questions (`commit_of`, `layout`, ...) return data or None; actions are named verbs
(`reset_hard`, `clean`, `checkout_detached`, `apply`, ...) that raise `GitError`. Only network
operations are retried.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from time import sleep

from rocm_deps import process
from rocm_deps.config.fields import FetchFilter, TagPolicy
from rocm_deps.contract.install import LocalChanges
from rocm_deps.environment import git_environment
from rocm_deps.process import Result
from rocm_deps.retry import RetryPolicy
from rocm_deps.runner import Runner

# stderr fragments of failures that another attempt cannot fix.
PERMANENT_FETCH_FAILURES = (
    "couldn't find remote ref",
    "not our ref",
    "repository not found",
    "does not appear to be a git repository",
    "access denied or repository not exported",
    "authentication failed",
    "could not read username",
    "invalid refspec",
    "no such remote",
    "unadvertised object",
    "terminal prompts disabled",
    "does not exist",                 # fatal: repository '...' does not exist
    "not allowed",                    # transport 'file'/'ext' not allowed: a setting
    "no space left on device",
    "disk quota exceeded",
    "read-only file system",
    "would be overwritten by checkout",
)


# stderr fragments of failures the network causes, the only ones worth another attempt:
# name resolution, timeouts, dropped connections, server errors.
TRANSIENT_FAILURES = (
    "could not resolve host",
    "temporary failure in name resolution",
    "name or service not known",
    "timed out",
    "connection reset",
    "connection refused",
    "connection closed",
    "network is unreachable",
    "no route to host",
    "early eof",
    "unexpected disconnect",
    "the remote end hung up",
    "could not read from remote repository",  # a dropped connection (a missing one says more)
    "rpc failed",
    "returned error: 5",
    "internal server error",
    "bad gateway",
    "service unavailable",
    "transfer closed",
    "read error",
    "broken pipe",
    "gnutls",
    "ssl",
    "index-pack failed",
    "bad pack header",
)

# Where `fetch` stores what it fetched (outside refs/heads and refs/tags: no branch or tag
# of the clone is touched).
FETCHED_REF = "refs/rocm-deps/fetched"
# What git says, and then fetches everything, when the server does not support --filter.
FILTER_IGNORED = "filtering not recognized by server"


@dataclass(frozen=True)
class PatchPaths:
    """What a patch touches, as git reads it."""

    changed: tuple[str, ...]  # every path it writes: a rename's new name, a created file
    created: tuple[str, ...]
    renamed: tuple[tuple[str, str], ...]  # (old, new)

    @property
    def touched(self) -> tuple[str, ...]:
        """Every path whose content the patch decides: what it writes, and what it moves."""
        return tuple(dict.fromkeys([*self.changed, *(old for old, _ in self.renamed)]))

    @property
    def required(self) -> tuple[str, ...]:
        """What must exist before it applies: what it changes but does not create, and the
        old name of each rename."""
        new_names = {new for _, new in self.renamed}
        return tuple(dict.fromkeys([*(path for path in self.changed if path not in self.created
                                      and path not in new_names),
                                    *(old for old, _ in self.renamed)]))

    @classmethod
    def of(cls, numstat: str, summary: str) -> PatchPaths:
        """From `git apply --numstat -z` (`added TAB deleted TAB path NUL`; a rename may give
        `added TAB deleted TAB NUL old NUL new NUL`) and `git apply --summary` (` create mode
        100644 path`, ` rename dir/{old => new} (100%)`)."""
        fields, changed = numstat.split("\0"), []
        index = 0
        while index < len(fields):
            entry = fields[index]
            index += 1
            if entry.count("\t") < 2:
                continue
            path = entry.split("\t", 2)[2]
            if not path and index + 1 < len(fields):  # a rename: old, then new
                path, index = fields[index + 1], index + 2
            changed.append(path)
        created, renamed = [], []
        for line in summary.splitlines():
            words = line.strip().split(" ")
            if words[0] == "create" and len(words) >= 2:
                created.append(" ".join(words[3:] if words[1] == "mode" else words[1:]))
            elif words[0] in ("rename", "copy"):
                moved = _moved(line.strip()[len(words[0]) + 1:].rsplit(" (", 1)[0])
                if moved is not None and words[0] == "rename":
                    renamed.append(moved)
        return cls(tuple(changed), tuple(created), tuple(renamed))


def _moved(text: str) -> tuple[str, str] | None:
    """`old => new`, or git's short form `dir/{old => new}/rest`, as (old, new)."""
    opening, closing = text.find("{"), text.rfind("}")
    if 0 <= opening < closing and " => " in text[opening:closing]:
        old, new = text[opening + 1:closing].split(" => ", 1)
        head, tail = text[:opening], text[closing + 1:]
        return (head + old + tail).replace("//", "/"), (head + new + tail).replace("//", "/")
    if " => " in text:
        old, new = text.split(" => ", 1)
        return old, new
    return None


class GitError(Exception):
    def __init__(self, message: str, result: Result | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.result = result


@dataclass(frozen=True)
class Layout:
    top: Path
    git_dir: Path


def is_permanent_fetch_failure(stderr: str) -> bool:
    """Whether another attempt cannot help: a failure git names as permanent, or one that does
    not look like the network's (an invalid submodule `update` value, a refused transport):
    only network-shaped failures are retried."""
    lowered = stderr.casefold()
    return (any(fragment in lowered for fragment in PERMANENT_FETCH_FAILURES)
            or not any(fragment in lowered for fragment in TRANSIENT_FAILURES))


class Git:
    """git bound to one work tree."""

    def __init__(self, path: Path, runner: Runner, environ: Mapping[str, str],
                 *, dry_run: bool = False) -> None:
        self.path = path
        self.runner = runner
        self.env = git_environment(environ)
        self.dry_run = dry_run

    def argv(self, *args: str) -> list[str]:
        # --no-optional-locks: read-only commands must not rewrite the index (dry runs and the
        # up-to-date check promise to leave the repository byte-identical).
        return ["git", "--no-optional-locks", "-c", f"safe.directory={self.path}",
                "-C", str(self.path), *args]

    def run(self, *args: str, echo: bool = True, stdin: str | None = None,
            progress: process.Progress | None = None) -> Result:
        return process.run(self.argv(*args), self.runner, env=self.env, echo=echo, stdin=stdin,
                           progress=progress)

    def check(self, *args: str, echo: bool = True,
              progress: process.Progress | None = None) -> str:
        """Run a command that must succeed; return its stdout."""
        result = self.run(*args, echo=echo, progress=progress)
        if not result.ok:
            raise GitError(f"`git {' '.join(args)}` failed: {_last_lines(result.stderr)}", result)
        return result.stdout

    def change(self, *args: str, progress: process.Progress | None = None) -> None:
        """A command that modifies the repository: only shown, not run, in a dry run."""
        if self.dry_run:
            self.runner.echo_command(self.argv(*args), dry_run=True)
        else:
            self.check(*args, progress=progress)

    def progress(self, what: str) -> process.Progress:
        """A heartbeat for a long command here: with the bytes of the pack being received."""
        return process.Progress(f"{what} in {self.path}", self._received)

    def _received(self) -> str:
        """The size of the packs git is receiving now (`objects/pack/tmp_pack_*`)."""
        try:
            size = sum(pack.stat().st_size
                       for pack in (self.path / ".git" / "objects" / "pack").glob("tmp_pack_*"))
        except OSError:
            return ""
        return f"{size / 2**20:.1f} MiB received" if size else ""

    # ---- questions: return data, never raise ----

    def layout(self) -> Layout | None:
        """The top of the work tree and the git directory, or None outside a work tree."""
        result = self.run("rev-parse", "--show-toplevel", "--absolute-git-dir", echo=False)
        lines = result.stdout.splitlines()
        return Layout(Path(lines[0]), Path(lines[1])) if result.ok and len(lines) == 2 else None

    def commit_of(self, revision: str) -> str | None:
        """The full SHA `revision` names, or None when it names nothing."""
        result = self.run("rev-parse", "--verify", "--quiet", "--end-of-options", revision,
                          echo=False)
        return result.stdout.strip() if result.ok else None

    def remote_url(self, remote: str) -> str | None:
        result = self.run("remote", "get-url", "--", remote, echo=False)
        return result.stdout.strip() if result.ok else None

    def remote_commit(self, remote: str, ref: str) -> str | None:
        """The commit the remote advertises for exactly `ref` (no suffix matching), or None."""
        # The `^{}` pattern asks for an annotated tag's peeled entry, which names the commit.
        result = self.run("-c", "protocol.version=2", "ls-remote", remote, "--", ref,
                          f"{ref}^{{}}")
        if not result.ok:
            return None
        advertised = {}
        for line in result.stdout.splitlines():
            sha, _, name = line.partition("\t")
            advertised[name.strip()] = sha.strip()
        # git's own order for a short name (ref_rev_parse_rules).
        for candidate in _full_names(ref):
            for name in (f"{candidate}^{{}}", candidate):
                if name in advertised:
                    return advertised[name]
        return None

    def is_shallow(self) -> bool:
        result = self.run("rev-parse", "--is-shallow-repository", echo=False)
        return result.stdout.strip() == "true"

    def diff_against_head(self, exclude: Sequence[str] = ()) -> str:
        """Tracked changes in the work tree, as a binary patch (but those of `exclude`)."""
        pathspecs = ("--", ".", *(f":(exclude){path}" for path in exclude)) if exclude else ()
        return self.check("diff", "--binary", "HEAD", *pathspecs, echo=False)

    def untracked_files(self) -> str:
        """Untracked, not ignored file names, NUL-separated."""
        return self.check("ls-files", "--others", "--exclude-standard", "-z", echo=False)

    def local_changes(self) -> LocalChanges:
        """What a reset and a clean would discard: tracked edits and deletions, untracked
        files (ignored ones survive `clean -fd`). Reads only: no index refresh is written."""
        output = self.check("--no-optional-locks", "status", "--porcelain=v1", "-z",
                            "--untracked-files=all", "--no-renames", echo=False)
        modified, deleted, untracked = [], [], []
        for entry in output.split("\0"):
            if len(entry) < 4:
                continue
            status, name = entry[:2], entry[3:]
            if status == "??":
                untracked.append(name)
            elif "D" in status:
                deleted.append(name)
            else:
                modified.append(name)
        return LocalChanges(tuple(modified), tuple(deleted), tuple(untracked))

    def changed_files(self, base: str, commit: str, prefixes: Sequence[str]) -> list[str]:
        """Files under `prefixes` that differ between two commits: a tree diff, so it needs
        no history between them."""
        output = self.check("diff", "--name-only", "-z", "--no-renames", base, commit, "--",
                            *prefixes, echo=False)
        return [name for name in output.split("\0") if name]

    def describe_head(self) -> str:
        return self.check("log", "--oneline", "--no-decorate", "-1").strip()

    # ---- probes: named try_*, return booleans ----

    def try_apply_check(self, patch: Path, *, reverse: bool = False, echo: bool = True) -> bool:
        """Whether `patch` applies (or, reversed, is already present) to the work tree."""
        return self.run(*_apply_args(patch, check=True, reverse=reverse), echo=echo).ok

    # ---- actions: raise GitError; only shown, not run, in a dry run ----

    def refresh_index(self) -> None:
        """Re-stat the work tree once and write the index back. In a freshly extracted image
        every file's stat data is stale, and every later pass (reset, clean, diff, checkout)
        would otherwise hash the whole tree again."""
        self.change("update-index", "-q", "--refresh")

    def reset_hard(self) -> None:
        self.change("reset", "--hard", "HEAD")

    def clean(self) -> None:
        self.change("clean", "-fd")

    def checkout_detached(self, commit: str) -> None:
        # In a partial clone checkout may still download file contents.
        self.change("checkout", "-f", "--detach", commit, progress=self.progress("git checkout"))

    def apply(self, patch: Path) -> None:
        self.change(*_apply_args(patch, check=False, reverse=False))

    def revert(self, patch: Path) -> None:
        """Take back a patch this run applied."""
        self.change(*_apply_args(patch, check=False, reverse=True))

    def plan_apply(self, patch: Path) -> None:
        """A dry run's view of the probe and the apply."""
        self.change(*_apply_args(patch, check=True, reverse=False))
        self.apply(patch)

    def patch_paths(self, patch: Path) -> PatchPaths:
        """Which paths `patch` writes and which it needs, as git reads the patch (`git apply
        --numstat -z` and `--summary`): any prefix (`a/`, `w/`, `diff -ruN`'s directories),
        renames, binary hunks. Never the header text."""
        numstat = self.run("apply", "--numstat", "-z", str(patch), echo=False)
        summary = self.run("apply", "--summary", str(patch), echo=False)
        if not (numstat.ok and summary.ok):
            raise GitError(f"git cannot read the patch {patch.name}: "
                           f"{(numstat.stderr or summary.stderr).strip()[-300:]}")
        return PatchPaths.of(numstat.stdout, summary.stdout)

    def rejected_hunks(self, patch: Path) -> str:
        """git's explanation of why `patch` does not apply."""
        result = self.run(*_apply_args(patch, check=True, reverse=False), "--verbose", echo=False)
        return result.stderr.strip()

    def update_submodules(self, retry: RetryPolicy) -> int:
        """Check out every submodule at the recorded commit; --force discards edits made
        inside a submodule, which the reset before checkout does not reach (they would
        otherwise stop the checkout)."""
        attempts, _ = self.with_retries(("submodule", "update", "--init", "--recursive",
                                         "--force"), retry, what="git submodule update")
        return attempts

    # ---- network ----

    def fetch(self, remote: str, target: str, depth: int, tags: TagPolicy,
              fetch_filter: FetchFilter, retry: RetryPolicy) -> int:
        """Fetch `target` (a ref or a SHA) and tags; returns the attempts used.

        `depth` 0 fetches the whole history: negotiation sends only the missing objects, and
        versions computed from git need history and tags. `tags` "all" fetches every tag of
        the remote: SGLang's version script takes the highest `v*` tag on any branch, because
        its releases are tagged on release branches. "reachable" fetches the tags that point
        into the target's history (storing it under FETCHED_REF is what makes git follow
        them), "none" no tag. `fetch_filter` "blob:none" fetches commits and trees only: the
        clone becomes a partial clone, still complete in history, and git downloads a file's
        contents from `remote` when a command first needs them (checkout: the new commit's)."""
        depth_args = (f"--depth={depth}",) if depth >= 1 else ()
        filter_args = (f"--filter={fetch_filter}",) if fetch_filter else ()
        tag_args = ("--no-tags",) if tags == "none" else ()
        refspecs = (f"+{target}:{FETCHED_REF}",) + (
            ("+refs/tags/*:refs/tags/*",) if tags == "all" else ())
        args = ("-c", "protocol.version=2", "fetch", "--no-recurse-submodules", *depth_args,
                *filter_args, *tag_args, remote, "--", *refspecs)
        attempts, stderr = self.with_retries(args, retry, what=f"git fetch of {target}")
        if fetch_filter and FILTER_IGNORED in stderr:
            self.runner.notice(f"the server does not serve partial fetches (git: "
                               f"{FILTER_IGNORED}): every file of the history was fetched, "
                               f"not only the commit's", title="rocm-deps: partial fetch")
        return attempts

    def fetch_missing_contents(self, remote: str, revision: str, retry: RetryPolicy) -> int:
        """In a partial clone, download the file contents of `revision`'s tree that are not
        here yet, retried like any fetch; returns the attempts used (0: nothing missing).

        Without it git would fetch them lazily inside `checkout`, once, with no retry: a
        network hiccup there would fail the job where a fetch would have been retried. The
        command is the one git's own lazy fetch runs, with the object names on stdin."""
        listing = self.check("rev-list", "--objects", "--missing=print", "--no-object-names",
                             f"{revision}^{{tree}}", echo=False)
        missing = [line[1:] for line in listing.splitlines() if line.startswith("?")]
        if not missing:
            return 0
        self.runner.info(f"fetching the contents of {len(missing)} files of {revision} "
                         f"(partial clone)")
        return self.fetch_blobs(remote, missing, retry)

    def fetch_blobs(self, remote: str, blobs: Sequence[str], retry: RetryPolicy) -> int:
        """Download the named file contents into a partial clone, retried like any fetch;
        returns the attempts used. The command is the one git's own lazy fetch runs, with the
        object names on stdin."""
        attempts, _ = self.with_retries(
            ("-c", "fetch.negotiationAlgorithm=noop", "-c", "protocol.version=2", "fetch",
             "--no-tags", "--no-write-fetch-head", "--recurse-submodules=no",
             "--filter=blob:none", "--stdin", remote), retry,
            stdin="".join(f"{blob}\n" for blob in blobs), what="git fetch of file contents")
        return attempts

    def with_retries(self, args: Sequence[str], retry: RetryPolicy, stdin: str | None = None,
                     what: str = "git") -> tuple[int, str]:
        """Run a network command until it succeeds; the attempts used and its stderr. A
        heartbeat line (`what`) shows it is alive while it runs."""
        if self.dry_run:
            self.change(*args)
            return 0, ""
        for attempt in range(1, retry.attempts + 1):
            result = self.run(*args, stdin=stdin, progress=self.progress(what))
            if result.ok:
                return attempt, result.stderr
            if result.stderr:
                self.runner.info(result.stderr.rstrip())
            permanent = is_permanent_fetch_failure(result.stderr)
            if permanent or attempt == retry.attempts:
                kind = "a permanent failure, not retried" if permanent else "gave up"
                raise GitError(f"{_last_lines(result.stderr) or f'exit code {result.returncode}'}"
                               f"\n(attempt {attempt} of {retry.attempts}: {kind})", result)
            delay = retry.wait(attempt)
            self.runner.info(f"attempt {attempt} of {retry.attempts} failed (looks transient); "
                             f"retrying in {delay:.0f} s")
            sleep(delay)
        raise AssertionError("unreachable")  # pragma: no cover


def _full_names(ref: str) -> tuple[str, ...]:
    if ref.startswith("refs/"):
        return (ref,)
    return (ref, f"refs/{ref}", f"refs/tags/{ref}", f"refs/heads/{ref}", f"refs/remotes/{ref}",
            f"refs/remotes/{ref}/HEAD")


def _apply_args(patch: Path, *, check: bool, reverse: bool) -> tuple[str, ...]:
    return ("apply", *(("--check",) if check else ()), *(("--reverse",) if reverse else ()),
            str(patch))


def _last_lines(text: str, count: int = 6) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return "\n".join(lines[-count:])
