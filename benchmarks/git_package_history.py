"""`rocm-deps install` of a git package (Megatron-Bridge) along a real history: each commit
after the image's installed in turn, then timed against the Dockerfile's own command, and
what each way of fetching a commit transfers.

The origin is a git repository holding the package's commits (for Megatron-Bridge, a linear
history built from `src`, `pyproject.toml`, `README.md` and `LICENSE` of real consecutive
commits of main); `--commits` names them oldest first, the image's commit first. A fresh
virtualenv of `--python` with the image's build requirements (`--build-requirement`, from
the package index once, not timed) gets the image's install the way the Dockerfile installs
it (`pip install git+<origin>@<image> --no-deps --no-build-isolation`). Then:

  sequence  for each later commit in order: `rocm-deps install` naming it (pinned, as
            resolve writes it with a token): exit 0, state `installed`, the report's line
            "N installed file(s) are <commit>'s", pip's direct_url.json names the commit;
            the same again: `up-to-date`, no pip, at most one fetch (the commit's trees, no
            file contents: every installed file is verified against them). Last, a run that names
            nothing (`--overrides '{}'`): `restored`, pip records the image's commit again.
  timing    `--runs` rounds, alternating which goes first, each measurement from the
            image's install put back (untimed) and a synced disk: the Dockerfile's
            `pip install git+<origin>@<commit> --no-deps --no-build-isolation` (with
            `--force-reinstall` only when the image's build has the commit's version, as
            pip keeps a same-version install) against the tool's first install of
            `--timed` (default: the middle commit), and the tool's re-run (up to date).
  bytes     what a fresh repository holds after fetching `--timed` from the origin (packs
            kept as received, so their size is what was transferred): the tool's own fetch
            (the commit's trees, then its pyproject.toml; its pip child then fetches what
            the Dockerfile's does), the whole history with contents, pip's own `git clone
            --filter=blob:none` then fetch and checkout of the commit (what the Dockerfile's
            command fetches), and `--depth=1`.

Usage: python benchmarks/git_package_history.py --origin DIR --commits IMAGE SHA...
           [--python python3.12] [--build-requirement 'setuptools<80' ...] [--runs N]
           [--timed SHA]
The origin should allow partial fetches (`git config uploadpack.allowFilter true`), as
GitHub does.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DISTRIBUTION = "megatron-bridge"


@dataclass
class Run:
    seconds: float
    code: int
    stdout: str
    stderr: str

    def entry(self) -> dict:
        """The install report's entry for the git package ({} when there is no report)."""
        try:
            return json.loads(self.stdout)["dependencies"][DISTRIBUTION]
        except (ValueError, KeyError, TypeError):
            return {}

    def ran(self) -> list[str]:
        """The fetches and pip runs the tool echoed (`+ ` lines)."""
        return [word for line in self.stderr.splitlines() if line.startswith("+ ")
                for word in ("fetch", "pip") if f" {word} " in line]


def up_to_date(again: Run) -> bool:
    """A re-run found up to date runs no pip and at most the one fetch of the commit's trees
    that its verification compares the installed files with."""
    return again.ran() in ([], ["fetch"])


def run(argv: list[str], environ: dict[str, str], check: bool = True, sync: bool = True,
        cwd: Path | None = None) -> Run:
    # Each timed from written-back disk: the install before it otherwise leaves its writes
    # to slow whichever runs next.
    if sync:
        os.sync()
    started = time.perf_counter()
    result = subprocess.run(argv, capture_output=True, text=True, env=environ, check=False,
                            cwd=cwd)
    done = Run(time.perf_counter() - started, result.returncode, result.stdout, result.stderr)
    if check and result.returncode != 0:
        raise SystemExit(f"{argv[:6]} failed ({result.returncode}):\n{result.stderr[-3000:]}")
    return done


def recorded(python: Path) -> tuple[str, str]:
    """(version, commit) as pip's record of the interpreter has them."""
    script = ("import json; from importlib.metadata import distribution as d; "
              f"x = d({DISTRIBUTION!r}); u = json.loads(x.read_text('direct_url.json')); "
              "print(x.version, u['vcs_info']['commit_id'])")
    out = subprocess.run([str(python), "-I", "-c", script], capture_output=True, text=True,
                         check=True).stdout.split()
    return out[0], out[1]


def git(directory: Path, *args: str, stdin: str | None = None,
        environ: dict[str, str] | None = None) -> str:
    return subprocess.run(["git", "-C", str(directory), *args], input=stdin,
                          capture_output=True, text=True, check=True, env=environ).stdout


def subject(origin: Path, commit: str) -> str:
    line = git(origin, "log", "-1", "--format=%s", commit).strip()
    return (line[:60] + "...") if len(line) > 63 else line


def pinned(commit: str) -> str:
    return json.dumps({DISTRIBUTION: {"ref": commit, "sha": commit, "kind": "commit",
                                      "source": "dispatch", "raw": commit}})


def sequence(origin: Path, commits: list[str], python: Path, install, checks: list[str]
             ) -> list[list[str]]:
    """Each commit after the image's in turn, each installed then up to date; then the
    image's restored. Rows of the table; failed checks appended to `checks`."""
    rows = []
    for commit in commits[1:]:
        first = install(pinned(commit))
        entry = first.entry()
        verified = re.search(rf"{re.escape(DISTRIBUTION)}: (\d+) installed file\(s\) are "
                             rf"{commit[:12]}'s", first.stderr)
        version, installed = recorded(python)
        again = install(pinned(commit))
        problems = [text for ok, text in (
            (first.code == 0, f"exit {first.code}"),
            (entry.get("state") == "installed", f"state {entry.get('state')}"),
            (verified is not None, "no verification line"),
            (installed == commit, f"pip records {installed}"),
            (again.code == 0, f"re-run exit {again.code}"),
            (again.entry().get("state") == "up-to-date",
             f"re-run state {again.entry().get('state')}"),
            (up_to_date(again), f"re-run ran {again.ran()}")) if not ok]
        if problems:
            checks.append(f"{commit}: {'; '.join(problems)}\n{first.stderr[-2000:]}")
        seconds = entry.get("seconds", {})
        rows.append([f"`{commit[:12]}` {subject(origin, commit)}", version,
                     entry.get("state", "-"), verified.group(1) if verified else "-",
                     installed[:12], f"{first.seconds:.2f}",
                     f"{seconds.get('fetch', 0):.2f} / {seconds.get('pip', 0):.2f}",
                     f"{again.entry().get('state', '-')}, ran {again.ran() or 'nothing'}",
                     f"{again.seconds:.2f}", "ok" if not problems else "FAILED"])
    back = install("{}")
    version, installed = recorded(python)
    ok = (back.code == 0 and back.entry().get("state") == "restored"
          and installed == commits[0])
    if not ok:
        checks.append(f"restore: exit {back.code}, state {back.entry().get('state')}, pip "
                      f"records {installed}\n{back.stderr[-2000:]}")
    after = install("{}")
    rows.append([f"`{{}}` (names nothing): back to the image's `{commits[0][:12]}`", version,
                 back.entry().get("state", "-"), "-", installed[:12], f"{back.seconds:.2f}",
                 "-", f"{after.entry().get('state', '-')}, ran {after.ran() or 'nothing'}",
                 f"{after.seconds:.2f}", "ok" if ok else "FAILED"])
    return rows


def timing(url: str, image: str, commit: str, python: Path, install, environ: dict[str, str],
           runs: int) -> tuple[list[list[str]], str]:
    """Interleaved rounds of the tool's first install and the Dockerfile's command."""
    def put_back() -> None:  # the image's install, as the Dockerfile made it
        run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
             "--force-reinstall", f"git+{url}@{image}"], environ)
        assert recorded(python)[1] == image

    put_back()
    image_version = recorded(python)[0]
    dockerfile = [str(python), "-m", "pip", "install", "-q", "--no-deps",
                  "--no-build-isolation", f"git+{url}@{commit}"]
    first = run(dockerfile, environ)  # untimed: learn the commit's version
    note = "plain"
    if recorded(python)[0] == image_version:  # pip would keep the image's install
        dockerfile.append("--force-reinstall")
        note = "with --force-reinstall (the commit's version is the image's)"
    del first
    times: dict[str, list[float]] = {"dockerfile": [], "tool": [], "rerun": []}
    own: list[float] = []
    for round_number in range(runs):
        for name in (("dockerfile", "tool") if round_number % 2 == 0
                     else ("tool", "dockerfile")):
            put_back()
            if name == "tool":
                done = install(pinned(commit), sync=True)
                if done.code != 0 or done.entry().get("state") != "installed":
                    raise SystemExit(f"tool install failed:\n{done.stderr[-3000:]}")
                own.append(done.seconds - float(done.entry()["seconds"]["pip"]))
            else:
                done = run(dockerfile, environ)
            times[name].append(done.seconds)
            assert recorded(python)[1] == commit
        again = install(pinned(commit), sync=True)
        assert again.entry().get("state") == "up-to-date" and up_to_date(again)
        times["rerun"].append(again.seconds)
    labels = {"dockerfile": f"the Dockerfile's `pip install git+<origin>@<sha> --no-deps "
                            f"--no-build-isolation` ({note})",
              "tool": "`rocm-deps install` naming the commit (first install)",
              "rerun": "the same again (up to date: the trees fetched and every file "
                       "verified, no pip)"}
    rows = []
    for name, values in times.items():
        ratios = [value / base for value, base in zip(values, times["dockerfile"], strict=True)]
        rows.append([labels[name], f"{statistics.median(values):.2f} s",
                     f"{statistics.median(ratios):.3f}x",
                     f"{statistics.median(values) / statistics.median(times['dockerfile']):.3f}x",
                     ", ".join(f"{value:.2f}" for value in values)])
    floors = [1 + extra / base for extra, base in zip(own, times["dockerfile"], strict=True)]
    rows.append(["the tool's own work around its pip child (from its install report)",
                 f"{statistics.median(own):.2f} s",
                 f"Dockerfile's plus it: {statistics.median(floors):.3f}x", "-",
                 ", ".join(f"{value:.2f}" for value in own)])
    return rows, note


def objects(directory: Path) -> tuple[int, int, int]:
    """(bytes of the packs as received, objects, KiB of .git/objects by count-objects)."""
    packs = sum(path.stat().st_size for path in (directory / ".git" / "objects" / "pack")
                .glob("*.pack"))
    counts = dict(line.split(": ", 1) for line in
                  git(directory, "count-objects", "-v").splitlines() if ": " in line)
    return (packs, int(counts["count"]) + int(counts["in-pack"]),
            int(counts["size"]) + int(counts["size-pack"]))


def fetched_bytes(url: str, commit: str, work: Path) -> list[list[str]]:
    """What each way of getting `commit` into a fresh repository transfers from `url`."""
    # Every received pack kept as it came (no unpacking into loose objects), in every git
    # process, including a partial clone's lazy fetches.
    environ = {**os.environ, "GIT_CONFIG_COUNT": "2",
               "GIT_CONFIG_KEY_0": "transfer.unpackLimit", "GIT_CONFIG_VALUE_0": "1",
               "GIT_CONFIG_KEY_1": "protocol.version", "GIT_CONFIG_VALUE_1": "2"}
    rows = []

    def fresh(name: str) -> Path:
        directory = work / name
        subprocess.run(["git", "init", "-q", str(directory)], check=True)
        return directory

    def fetch(directory: Path, *args: str) -> None:
        git(directory, "fetch", "-q", "--no-tags", "--no-recurse-submodules", *args, url,
            "--", f"+{commit}:refs/fetched", environ=environ)

    tool = fresh("tool")  # as the tool fetches: the commit and its trees, then pyproject.toml
    fetch(tool, "--depth=1", "--filter=blob:none")
    pyproject = git(tool, "rev-parse", f"{commit}:pyproject.toml", environ=environ).strip()
    git(tool, "-c", "fetch.negotiationAlgorithm=noop", "fetch", "--no-tags",
        "--no-write-fetch-head", "--recurse-submodules=no", "--filter=blob:none", "--stdin",
        url, stdin=f"{pyproject}\n", environ=environ)
    rows.append(("the tool's own: `fetch --depth=1 --filter=blob:none` of the commit, then its "
                 "pyproject.toml (`build-isolation = \"auto\"`); pip's below comes on top", tool))
    full = fresh("full")
    fetch(full)
    rows.append(("the whole history of the commit with every file's contents", full))
    clone = work / "pip"  # pip's own steps for git+<url>@<sha>
    subprocess.run(["git", "clone", "--filter=blob:none", "--quiet", url, str(clone)],
                   check=True, env=environ)
    git(clone, "fetch", "-q", url, commit, environ=environ)
    git(clone, "checkout", "-q", commit, environ=environ)
    rows.append(("pip's (the Dockerfile's command): `clone --filter=blob:none`, its default "
                 "branch checked out, then fetch and checkout of the commit", clone))
    shallow = fresh("shallow")
    fetch(shallow, "--depth=1")
    rows.append(("`--depth=1` of the commit (for reference)", shallow))
    return [[label, f"{packs:,}", f"{count:,}", f"{kib:,}"]
            for label, directory in rows for packs, count, kib in [objects(directory)]]


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--origin", type=Path, required=True)
    parser.add_argument("--commits", nargs="+", required=True,
                        help="oldest first: the image's commit, then the commits to install")
    parser.add_argument("--python", default="python3.12")
    parser.add_argument("--build-requirement", action="append",
                        default=[], help="repeatable; default: setuptools<80, pybind11, wheel")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--timed", help="the commit timed and fetched (default: the middle one)")
    parser.add_argument("--steps", default="sequence,timing,bytes",
                        help="which of sequence, timing, bytes to run (comma-separated)")
    parser.add_argument("--source", type=Path, default=ROOT / "src",
                        help="rocm-deps's source directory (default: this checkout's)")
    arguments = parser.parse_args()
    if len(arguments.commits) < 2:
        parser.error("--commits needs the image's commit and at least one more")
    requirements = arguments.build_requirement or ["setuptools<80", "pybind11", "wheel"]
    origin = arguments.origin.resolve()
    url = origin.as_uri()
    commits = [git(origin, "rev-parse", "--verify", f"{sha}^{{commit}}").strip()
               for sha in arguments.commits]
    timed = (git(origin, "rev-parse", "--verify", f"{arguments.timed}^{{commit}}").strip()
             if arguments.timed else commits[len(commits) // 2])
    environ = {key: value for key, value in os.environ.items()
               if not key.startswith(("GITHUB_", "RUNNER_"))}
    tool = [sys.executable, "-I", "-S", "-c",
            "import sys; sys.path.insert(0, sys.argv[1]); from rocm_deps.cli import main; "
            "raise SystemExit(main(sys.argv[2:]))", str(arguments.source)]
    checks: list[str] = []
    with tempfile.TemporaryDirectory(prefix="git-package-history-") as work:
        config = Path(work) / "config.toml"
        config.write_text("[dependencies.sglang]\nenabled = false\n"
                          "[dependencies.megatron]\nenabled = false\n"
                          f"[dependencies.{DISTRIBUTION}]\nurl = {json.dumps(url)}\n"
                          "[install]\nworkspace-install = false\n")
        venv = Path(work) / "venv"
        subprocess.run([arguments.python, "-m", "venv", str(venv)], check=True)
        python = venv / "bin" / "python"
        subprocess.run([str(python), "-m", "pip", "install", "-q", *requirements], check=True)
        image = run([str(python), "-m", "pip", "install", "-q", "--no-deps",
                     "--no-build-isolation", f"git+{url}@{commits[0]}"], environ)
        assert recorded(python)[1] == commits[0]

        def install(overrides: str, sync: bool = True) -> Run:
            return run([*tool, "install", "--config", str(config), "--workspace", work,
                        "--python", str(python), "--overrides", overrides,
                        "--workspace-install", "false", "--format", "json"], environ,
                       check=False, sync=sync)

        steps = set(arguments.steps.split(","))
        rows = sequence(origin, commits, python, install, checks) if "sequence" in steps else []
        load = os.getloadavg()[0]
        timed_rows = (timing(url, commits[0], timed, python, install, environ, arguments.runs)[0]
                      if "timing" in steps else [])
        load = max(load, os.getloadavg()[0])
        byte_rows = fetched_bytes(url, timed, Path(work) / "bytes") if "bytes" in steps else []
    print(f"origin {url}: {len(commits)} commits; target {arguments.python} "
          f"({', '.join(requirements)}); the image's install took {image.seconds:.2f} s\n")
    if rows:
        print(table(["commit", "version pip records", "state", "files verified",
                 "pip's commit", "first (s)", "fetch / pip (s)", "again", "again (s)",
                     "checks"], rows))
        print(f"\n{sum(row[-1] == 'ok' for row in rows[:-1])}/{len(rows) - 1} commits "
              f"installed and verified, then up to date; restore: {rows[-1][-1]}\n")
    if timed_rows:
        print(f"Timing: `{timed[:12]}`, {arguments.runs} rounds, alternating which goes "
              f"first, each from the image's install put back; {os.cpu_count()} cores, "
              f"highest 1-minute load average seen {load:.2f}\n")
        print(table(["run", "median", "median of the rounds' ratios to the Dockerfile's",
                     "ratio of the medians", "runs (s)"], timed_rows))
    if byte_rows:
        print(f"\nBytes: what a fresh repository holds after getting `{timed[:12]}` "
              f"(packs kept as received)\n")
        print(table(["fetch", "pack bytes received", "objects", "KiB in .git/objects"],
                    byte_rows))
    for failure in checks:
        print(f"\nFAILED: {failure}")
    return 1 if checks else 0


if __name__ == "__main__":
    raise SystemExit(main())
