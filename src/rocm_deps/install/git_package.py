"""A git package: a dependency the image pip-installed from git, with no clone left (as both
Miles Dockerfiles install Megatron-Bridge: `pip install git+<url>@<sha> --no-deps`).

Install first fetches the named commit's tree alone (one commit, no file contents) into a new
private directory, with the clone fetch's retries and heartbeats: an unknown commit fails
there, before pip touches the interpreter, and the tree is what the install is verified
against. Then it runs the image's own command with `--force-reinstall`, `pip install
--no-deps --force-reinstall git+<url>@<sha>`, and pip fetches the commit as it does in the
image build, so its record (`direct_url.json`, `pip freeze`) names `<url>` and the commit.
The reinstall is what makes a pull request that keeps the version (nearly every one)
installed at all: pip keeps a same-version install whatever commit the URL names. pip
replaces the installed version only after a build that succeeded, so a failed fetch or build
leaves the previous install in place. Verified after, in one question to the interpreter:
pip's record names the commit, every installed file of the distribution that the commit's
tree holds has that file's content (a git blob hash each; not only Python files), and the
top-level modules import from the install. **Up to date is verified**, every time, by that
same check against the commit's tree (fetched, no pip): a record that names the commit while
a file was edited since installs again, saying which files differ.

The image's install (what the interpreter recorded, and each of its files' blobs, when this
tool first met it) is kept in a state file of the interpreter's environment, so a run that
names nothing returns it there, as the clones are returned to theirs, and finds it when its
files changed since.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from rocm_deps import process
from rocm_deps.config import DependencyConfig
from rocm_deps.contract.install import (
    ABSENT,
    IMAGE,
    INSTALLED,
    PLANNED_INSTALL,
    RESTORED,
    UP_TO_DATE,
    DependencyReport,
)
from rocm_deps.contract.overrides import Override
from rocm_deps.environment import git_environment
from rocm_deps.grammar.refs import FULL_SHA
from rocm_deps.install.build import needs_isolation
from rocm_deps.install.git import FETCHED_REF, Git, GitError
from rocm_deps.install.job import Context, StepFailed, first_names, timed
from rocm_deps.install.pip import (
    DISTRIBUTIONS,
    NO_ISOLATION,
    declared_build_requirements,
    install_argv,
)

# Asked of the interpreter under test: what it records for a distribution (its version, and
# the commit and URL of a VCS install), or null when it has none. `record` is shared by both
# probes; RECORD_PROBE, asked before every install, finds the distribution without importing
# `importlib.metadata` (pip.DISTRIBUTIONS).
_RECORD = """\
import json, sys
def record(version, direct_url):
    try:
        direct = json.loads(direct_url or "null")
    except ValueError:
        direct = None
    direct = direct if isinstance(direct, dict) else {}
    vcs = direct.get("vcs_info") if isinstance(direct.get("vcs_info"), dict) else {}
    return {"version": version, "url": direct.get("url"), "commit": vcs.get("commit_id")}
"""
RECORD_PROBE = DISTRIBUTIONS + _RECORD + """\
info = first(sys.argv[1])
print("null" if info is None else json.dumps(record(metadata(info).get("version"),
                                                    read(info, "direct_url.json"))))
"""
# Asked after the install, in the same interpreter start: the record, the git blob hash of
# each Python file the distribution installed (by its path in the distribution), and whether
# its top-level modules import from there.
FILES_PROBE = _RECORD + """\
import hashlib, importlib
from importlib.metadata import PackageNotFoundError, distribution
try:
    found = distribution(sys.argv[1])
except PackageNotFoundError:
    print("null")
    raise SystemExit(0)
blobs, tops = {}, set()
for file in found.files or ():
    path = str(file)
    if (".dist-info/" in path or path.startswith("..") or "__pycache__/" in path
            or path.endswith(".pyc")):
        continue
    try:
        data = found.locate_file(file).read_bytes()
    except OSError:
        blobs[path] = "missing"
        continue
    blobs[path] = hashlib.sha1(b"blob %d\\0" % len(data) + data).hexdigest()
    if path.endswith(".py"):
        tops.add(path.split("/", 1)[0].removesuffix(".py"))
imported = {}
for top in sorted(tops):
    try:
        module = importlib.import_module(top)
        imported[top] = str(getattr(module, "__file__", None) or list(module.__path__)[0])
    except Exception as error:
        imported[top] = "error: " + type(error).__name__ + ": " + str(error)[:200]
print(json.dumps({"record": record(found.version, found.read_text("direct_url.json")),
                  "blobs": blobs, "imported": imported, "location": str(found.locate_file(""))}))
"""
MAX_TEXT = 1000
MAX_PYPROJECT = 1024 * 1024
STATE_DIRECTORY = "rocm-deps-state"


@dataclass(frozen=True)
class Installed:
    """What the interpreter records for the distribution: None fields when unknown."""

    version: str | None
    url: str | None
    commit: str | None

    def to_json(self) -> dict[str, str | None]:
        return {"version": self.version, "url": self.url, "commit": self.commit}


def install(context: Context, dependency: DependencyConfig, override: Override | None,
            report: DependencyReport) -> None:
    """Install `override` (None: nothing names it, hold or return the image's install)."""
    assert dependency.distribution is not None and dependency.url is not None
    current = recorded(context, dependency.distribution)
    state = _State(context, dependency.distribution)
    image = state.image()
    if override is None:
        if image is None and current is None:
            report.state = ABSENT
            context.runner.info(f"{dependency.name}: not named, and the interpreter has no "
                                f"{dependency.distribution}: nothing to keep")
            return
        if image is None or current == image:
            differ = _image_kept(context, dependency, state, current)
            if not differ:
                report.state, report.commit = IMAGE, current.commit if current else None
                report.version = current.version if current else None
                context.runner.info(f"{dependency.name}: not named; the interpreter holds the "
                                    f"image's install ({_described(current)}), its files as "
                                    f"they were when rocm-deps first met it")
                return
            image = state.image()
            assert image is not None
            context.runner.warning(f"{dependency.name}: not named, and the interpreter records "
                                   f"the image's install, but {differ}: returning it to the "
                                   f"image's commit", title=f"rocm-deps: {dependency.name} "
                                                            f"install changed")
        if image is None or image.commit is None:
            raise StepFailed("check", f"{dependency.name} is not named, and the image's "
                                      f"install ({_described(image)}) recorded no commit to "
                                      f"return to: the interpreter holds "
                                      f"{_described(current)}. Use a fresh container")
        url, target = image.url or dependency.url, image.commit
        wanted: str | None = image.commit
        report.ref = report.sha = target
    else:
        url, target, wanted = dependency.url, override.sha or override.ref, override.sha
    if context.dry_run:
        if wanted is not None and current is not None and current.commit == wanted:
            context.runner.info(f"{dependency.name}: the interpreter records {wanted}; a run "
                                f"checks its files against the commit's tree")
        context.runner.echo_command(("git", "fetch", url, target), dry_run=True)
        if dependency.build_isolation == "auto":
            context.runner.info(f"{dependency.name}: whether the build needs isolation is "
                                f"decided when the commit is fetched (shown without)")
        context.runner.echo_command(_pip_argv(context, dependency, url, wanted or target,
                                              dependency.build_isolation == "always"),
                                    dry_run=True)
        report.state = PLANNED_INSTALL
        return
    directory = Path(tempfile.mkdtemp(prefix="rocm-deps-git-package-"))
    try:
        git = Git(directory, context.runner, context.settings.environ)
        with timed(report, "fetch"):
            commit = _fetch(context, dependency, git, url, target, wanted, report)
        tree = _tree(git, commit)
        if current is not None and current.commit == commit:
            # Up to date is verified: the same check as after a fresh install, every time.
            problems = _not_the_commits(_inspect(context, dependency), commit, tree)
            if not problems:
                _up_to_date(context, dependency, current, report)
                return
            context.runner.warning(f"{dependency.name}: the interpreter records {commit}, but "
                                   f"{'; '.join(problems)}: installing it again",
                                   title=f"rocm-deps: {dependency.name} install changed")
        if image is None:  # before the first change: what the image had
            state.save_image(current, _inspect(context, dependency).blobs)
        isolated = _isolated(context, dependency, git, url, commit, tree, report)
        with timed(report, "pip"):
            _pip_install(context, dependency, url, commit, current, isolated)
        after = _verify(context, dependency, commit, tree)
        assert after.record is not None
        report.commit, report.version = commit, after.record.version
        report.state = RESTORED if override is None else INSTALLED
        if override is None:
            # What the image's install is from now on: its commit as pip installs it (edits
            # the image made to its files, if any, are gone with the reinstall).
            state.save_image(state.image() or after.record, after.blobs)
            context.runner.warning(f"{dependency.name}: not named, but an earlier run had "
                                   f"installed another commit: returned the interpreter to "
                                   f"the image's install at {commit}",
                                   title=f"rocm-deps: {dependency.name} restored")
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _image_kept(context: Context, dependency: DependencyConfig, state: _State,
                current: Installed | None) -> str:
    """Whether the image's install is as rocm-deps first met it: "" when it is (the first
    time, what it is now is captured), else what differs."""
    if context.dry_run or current is None:
        return ""
    inspected = _inspect(context, dependency)
    elsewhere = _elsewhere(inspected)
    if elsewhere:
        return "; ".join(elsewhere)
    captured = state.image_files()
    if captured is None:  # the first meeting: the image's files as they are
        state.save_image(current, inspected.blobs)
        return ""
    differ = sorted(path for path in {*captured, *inspected.blobs}
                    if captured.get(path) != inspected.blobs.get(path))
    return (f"{len(differ)} installed file(s) differ from the image's ({first_names(differ)})"
            if differ else "")


def recorded(context: Context, distribution: str) -> Installed | None:
    """What the interpreter under test records for `distribution` (None: not installed).
    Its answer is checked like any input: a commit is a full SHA or nothing."""
    python = context.settings.python
    result = process.run((python, "-I", "-c", RECORD_PROBE, distribution), context.runner,
                         env=context.pip_env(None), echo=False)
    try:
        document = json.loads(result.stdout.strip() or "null")
    except ValueError:
        document = None
    if not result.ok:
        raise StepFailed("check", f"the interpreter {python} could not say what it has of "
                                  f"{distribution} (exit code {result.returncode}): "
                                  f"{result.stderr.strip()[-300:]}")
    if not isinstance(document, dict):
        return None
    return _installed(document)


def _installed(document: dict[str, object]) -> Installed:
    def text(value: object) -> str | None:
        return value if isinstance(value, str) and len(value) <= MAX_TEXT else None

    commit = text(document.get("commit"))
    return Installed(text(document.get("version")), text(document.get("url")),
                     commit if commit is not None and FULL_SHA.fullmatch(commit) else None)


def _described(installed: Installed | None) -> str:
    if installed is None:
        return "nothing installed"
    return (f"{installed.version or 'no version'}"
            f"{f' at {installed.commit}' if installed.commit else ' (no commit recorded)'}")


def _up_to_date(context: Context, dependency: DependencyConfig, current: Installed,
                report: DependencyReport) -> None:
    report.state, report.commit, report.version = UP_TO_DATE, current.commit, current.version
    context.runner.info(f"{dependency.name} is up to date: the interpreter records "
                        f"{current.commit}, and its files are that commit's; nothing to do")


def _fetch(context: Context, dependency: DependencyConfig, git: Git, url: str, target: str,
           wanted: str | None, report: DependencyReport) -> str:
    """Exactly `target` of `url`, the commit and its trees only; the commit fetched."""
    try:
        git.check("init", "-q", echo=False)
        # One commit without file contents: enough to refuse a commit other than the one
        # asked for, and to verify the install against its tree. pip fetches the commit
        # itself, as in the image build, so nothing here is fetched for pip.
        report.fetch_attempts = git.fetch(url, target, 1, "none", "blob:none", context.retry)
    except GitError as error:
        raise StepFailed("fetch", f"could not fetch `{target}` of {dependency.name} from "
                                  f"{url}: {error.message}\nThe interpreter still holds "
                                  f"what it had") from None
    commit = git.commit_of(FETCHED_REF)
    if commit is None or (wanted is not None and commit != wanted):
        raise StepFailed("verify", f"fetched {commit or 'nothing'} of {url} for `{target}`, "
                                   f"not {wanted}: refusing to install a commit other than "
                                   f"the one asked for")
    return commit


def _isolated(context: Context, dependency: DependencyConfig, git: Git, url: str, commit: str,
              tree: dict[str, str], report: DependencyReport) -> bool:
    """`build-isolation`: for `auto`, whether the interpreter lacks a build requirement the
    commit's pyproject.toml declares (its one file fetched), as for a clone."""
    policy = dependency.build_isolation
    if policy == "auto":
        text = None
        if "pyproject.toml" in tree:
            try:
                report.fetch_attempts += git.fetch_blobs(url, (tree["pyproject.toml"],),
                                                         context.retry)
            except GitError as error:
                raise StepFailed("fetch", f"could not fetch pyproject.toml of {commit} from "
                                          f"{url}: {error.message}") from None
            shown = git.run("cat-file", "blob", tree["pyproject.toml"], echo=False)
            text = shown.stdout[:MAX_PYPROJECT] if shown.ok else None
        isolated = needs_isolation(context, dependency.name, *declared_build_requirements(
            text, f"pyproject.toml of {commit[:12]}"))
    else:
        isolated = policy == "always"
    report.build_isolation = "isolated" if isolated else "not isolated"
    return isolated


def _pip_argv(context: Context, dependency: DependencyConfig, url: str, commit: str,
              isolated: bool) -> list[str]:
    pip_args = context.pip_args(dependency)
    isolation = () if isolated or NO_ISOLATION in pip_args else (NO_ISOLATION,)
    return install_argv(context.settings.python, f"git+{url}@{commit}",
                        (*isolation, *pip_args), reinstall=True)


def _pip_install(context: Context, dependency: DependencyConfig, url: str, commit: str,
                 current: Installed | None, isolated: bool) -> None:
    result = process.run(_pip_argv(context, dependency, url, commit, isolated),
                         context.runner, env=git_environment(context.pip_env(dependency)),
                         capture=False,
                         progress=process.Progress(f"pip install {dependency.distribution}"))
    if not result.ok:
        raise StepFailed("pip", f"`pip install git+{url}@{commit}` for {dependency.name} failed "
                                f"with exit code {result.returncode} (pip's output is above); "
                                f"the interpreter still holds {_described(current)}")


@dataclass(frozen=True)
class Inspected:
    """What the interpreter has of the distribution, in one question: its record, the git
    blob hash of each installed file (by its path in the distribution) and where each
    top-level module imports from (`error: ...` when it does not)."""

    record: Installed | None
    blobs: dict[str, str]
    imported: dict[str, str]
    location: str = ""  # where the distribution's files are (its site directory)


def _inspect(context: Context, dependency: DependencyConfig) -> Inspected:
    assert dependency.distribution is not None
    python = context.settings.python
    result = process.run((python, "-I", "-c", FILES_PROBE, dependency.distribution),
                         context.runner, env=context.pip_env(None), echo=False)
    unreadable = StepFailed("verify", f"{python} could not list the files of "
                                      f"{dependency.distribution} (exit code "
                                      f"{result.returncode}): {result.stderr.strip()[-300:]}")
    if not result.ok:
        raise unreadable
    try:  # null: the distribution is gone
        found = json.loads(result.stdout.strip() or "null") or {
            "record": None, "blobs": {}, "imported": {}}
        record = _installed(found["record"]) if found["record"] is not None else None
        blobs = {str(path): str(blob) for path, blob in dict(found["blobs"]).items()}
        imported = {str(top): str(where) for top, where in dict(found["imported"]).items()}
        location = str(found.get("location", ""))
    except (ValueError, TypeError, KeyError, AttributeError):
        raise unreadable from None
    return Inspected(record, blobs, imported, location)


def _not_the_commits(inspected: Inspected, commit: str, tree: dict[str, str]) -> list[str]:
    """Why what the interpreter has is not `commit`'s: its record names another commit, an
    installed file the commit's tree holds (under the package's source root) has other
    content, a top-level module does not import. Empty: it is the commit's."""
    if inspected.record is None or inspected.record.commit != commit:
        return [f"it records {_described(inspected.record)}, not {commit}"]
    blobs = inspected.blobs
    root = next((prefix for path in blobs for prefix in ("", "src/")
                 if f"{prefix}{path}" in tree), None)
    if root is None:
        return [f"none of the {len(blobs)} files it has is a file of {commit}, so the install "
                f"cannot be confirmed to be that commit's"]
    differ = sorted(path for path, blob in blobs.items()
                    if f"{root}{path}" in tree and tree[f"{root}{path}"] != blob)
    broken = {top: where for top, where in inspected.imported.items()
              if where.startswith("error: ")}
    return [*([f"{len(differ)} installed file(s) differ from the commit's "
               f"({first_names(differ)})"] if differ else []),
            *(f"`import {top}` failed: {where[7:]}" for top, where in broken.items()),
            *_elsewhere(inspected)]


def _elsewhere(inspected: Inspected) -> list[str]:
    """The top-level modules the interpreter imports from another place than the installed
    distribution's files (a `.pth` file, an earlier entry of sys.path), each with that place."""
    if not inspected.location:
        return []
    root = Path(inspected.location).resolve()
    found = []
    for top, where in sorted(inspected.imported.items()):
        if where.startswith("error: "):
            continue
        path = Path(where).resolve()
        relative = path.relative_to(root).as_posix() if path.is_relative_to(root) else None
        if relative is None or not (relative in inspected.blobs or any(
                installed.startswith(f"{relative}/") for installed in inspected.blobs)):
            found.append(f"`import {top}` comes from {where}, not from the installed "
                         f"distribution (a `.pth` file or an earlier entry of sys.path wins)")
    return found


def _matched(inspected: Inspected, tree: dict[str, str]) -> int:
    return sum(1 for path in inspected.blobs if path in tree or f"src/{path}" in tree)


def _verify(context: Context, dependency: DependencyConfig, commit: str,
            tree: dict[str, str]) -> Inspected:
    """After pip: what the interpreter now has is the commit (`_not_the_commits` finds
    nothing), or the step fails."""
    python = context.settings.python
    inspected = _inspect(context, dependency)
    problems = _not_the_commits(inspected, commit, tree)
    if problems:
        raise StepFailed("verify", f"pip reported success, but what {python} has of "
                                   f"{dependency.distribution} is not {commit}'s: "
                                   + "; ".join(problems))
    assert inspected.record is not None
    context.runner.info(f"{dependency.name}: {_matched(inspected, tree)} installed file(s) are "
                        f"{commit[:12]}'s, and "
                        f"{', '.join(sorted(inspected.imported)) or 'nothing'} imports from "
                        f"the install")
    return inspected


def _tree(git: Git, commit: str) -> dict[str, str]:
    """Path -> blob hash of every file of `commit`."""
    try:
        listing = git.check("ls-tree", "-r", "-z", commit, echo=False)
    except GitError as error:
        raise StepFailed("verify", f"cannot list the files of {commit}: {error.message}"
                         ) from None
    tree = {}
    for entry in listing.split("\0"):
        meta, _, path = entry.partition("\t")
        fields = meta.split()
        if len(fields) == 3 and fields[1] == "blob":
            tree[path] = fields[2]
    return tree


class _State:
    """The tool's record of a git package in the interpreter's environment: the install the
    image had, before this tool first replaced it."""

    def __init__(self, context: Context, distribution: str) -> None:
        prefix = context.environment().split("\n", 1)[0]
        self.path = Path(prefix) / STATE_DIRECTORY / f"{distribution}.json"
        self.dry_run = context.dry_run

    def image(self) -> Installed | None:
        try:
            document = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        image = document.get("image") if isinstance(document, dict) else None
        return _installed(image) if isinstance(image, dict) else None

    def image_files(self) -> dict[str, str] | None:
        """The image's installed files (path -> blob) when rocm-deps first met them; None when
        they were not captured."""
        try:
            document = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        files = document.get("files") if isinstance(document, dict) else None
        if not isinstance(files, dict) or not all(isinstance(value, str)
                                                  for value in files.values()):
            return None
        return {str(path): value for path, value in files.items()}

    def save_image(self, installed: Installed | None, files: dict[str, str]) -> None:
        if self.dry_run:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps({"image": (installed or Installed(None, None, None))
                                         .to_json(), "files": files}) + "\n",
                             encoding="utf-8")
