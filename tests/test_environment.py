"""What every child process may see: the one policy, and who asks it."""

from __future__ import annotations

import ast
import base64
from pathlib import Path

import pytest

from rocm_deps.environment import (
    PIP_ENVIRONMENT,
    UNSAFE_PYTHON_VARIABLES,
    child_environment,
    git_environment,
    pip_environment,
)

SOURCE = Path(__file__).resolve().parents[1] / "src" / "rocm_deps"
def test_child_processes_never_get_the_token(tmp_path: Path) -> None:
    token = "ghs_childTESTtoken0123456789abcdef"
    environ = {"PATH": f"/usr/bin::.:relative/bin:{tmp_path}", "HOME": "/home/runner",
               "GITHUB_TOKEN": "ghs_another", "GH_TOKEN": "ghs_yet_another",
               "INPUT_GITHUB_TOKEN": token, "MY_TOKEN": token,
               "REMOTE": f"https://x-access-token:{token}@github.com/o/r"}
    assert child_environment(environ, token) == {"PATH": f"/usr/bin:{tmp_path}",
                                                 "HOME": "/home/runner"}

@pytest.mark.parametrize("prefix", ["x-access-token:", "", "a", "ab", "user:"],
                         ids=["checkout-extraheader", "bare", "offset-1", "offset-2", "user"])
def test_a_base64_or_url_encoded_token_never_reaches_a_child(prefix: str) -> None:
    """actions/checkout leaves `AUTHORIZATION: basic base64(x-access-token:TOKEN)` in
    GIT_CONFIG_PARAMETERS (an extraheader): that too names the token."""
    import base64
    import urllib.parse

    token = "ghs_childTESTtoken0123456789abcdef/+="
    header = base64.b64encode(f"{prefix}{token}".encode()).decode()
    environ = {"PATH": "/usr/bin", "GIT_CONFIG_PARAMETERS":
               f"'http.https://github.com/.extraheader'='AUTHORIZATION: basic {header}'",
               "QUOTED": f"https://h/?t={urllib.parse.quote(token, safe='')}",
               "HOME": "/home/runner"}
    assert child_environment(environ, token) == {"PATH": "/usr/bin", "HOME": "/home/runner"}


def test_the_environment_drops_python_variables_and_sets_pips() -> None:
    environ = {name: "x" for name in UNSAFE_PYTHON_VARIABLES} | {
        "PATH": "/bin", "PIP_NO_INPUT": "0", "HOME": "/h"}
    assert pip_environment(environ) == {"PATH": "/bin", "HOME": "/h", **PIP_ENVIRONMENT}
    assert PIP_ENVIRONMENT["PIP_BREAK_SYSTEM_PACKAGES"] == "1"


def test_environment_cannot_redirect_git_and_never_prompts() -> None:
    env = git_environment({"GIT_DIR": "/elsewhere", "GIT_WORK_TREE": "/x", "PATH": "/bin"})
    assert "GIT_DIR" not in env and "GIT_WORK_TREE" not in env
    assert (env["GIT_TERMINAL_PROMPT"], env["PATH"]) == ("0", "/bin")


def test_pip_env_of_the_config_comes_last() -> None:
    assert pip_environment({"PATH": "/bin"}, {"CFLAGS": "-O2"}) == {
        "PATH": "/bin", **PIP_ENVIRONMENT, "CFLAGS": "-O2"}


def _defines_or_filters_an_environment(tree: ast.AST) -> set[str]:
    """Names of environment policy a module writes itself: a frozenset of variable names, or a
    comprehension over `environ.items()`."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.DictComp):
            source = ast.unparse(node)
            if ".items()" in source and ("environ" in source or "env" in source):
                found.add(source[:60])
        if isinstance(node, ast.Assign) and any(
                isinstance(target, ast.Name) and target.id.endswith("_VARIABLES")
                for target in node.targets):
            found.add(ast.unparse(node.targets[0]))
    return found


def test_one_module_decides_what_a_child_process_sees() -> None:
    """Every module that builds a child's environment asks `environment`; none filters one
    itself (the policy lived in four places once, and they drifted)."""
    policy = {}
    for path in sorted(SOURCE.rglob("*.py")):
        if "_vendor" in path.parts:
            continue
        name = path.relative_to(SOURCE).as_posix()
        text = path.read_text()
        tree = ast.parse(text)
        if name != "environment.py":
            own = _defines_or_filters_an_environment(tree)
            if own:
                policy[name] = own
    assert policy == {}


CHILD_TOKEN = "ghs_childTESTtoken0123456789abcdef"


def _wrapped(text: bytes, width: int) -> str:
    encoded = base64.b64encode(text).decode()
    return "\n".join(encoded[start:start + width] for start in range(0, len(encoded), width))


@pytest.mark.parametrize("value", [
    CHILD_TOKEN.encode().hex(),
    CHILD_TOKEN.encode().hex().upper(),
    CHILD_TOKEN.removeprefix("ghs_"),
    base64.b64encode(CHILD_TOKEN.encode()).decode().rstrip("="),
    base64.urlsafe_b64encode(b"x-access-token:" + CHILD_TOKEN.encode()).decode(),
    # `base64` / MIME output: lines of 76 (or PEM's 64), a break inside the token's encoding
    base64.encodebytes(b"x-access-token:" + b"p" * 30 + CHILD_TOKEN.encode()).decode(),
    _wrapped(b"p" * 40 + CHILD_TOKEN.encode(), 64),
    _wrapped(CHILD_TOKEN.removeprefix("ghs_").encode(), 76),
], ids=["hex", "HEX", "without-prefix", "base64-unpadded", "basic-auth-urlsafe",
        "base64-wrapped-76", "base64-wrapped-64", "without-prefix-base64"])
def test_the_token_in_any_form_never_reaches_a_child(value: str) -> None:
    environ = {"PATH": "/usr/bin", "HOME": "/home/runner", "CARRIER": value}
    assert child_environment(environ, CHILD_TOKEN) == {"PATH": "/usr/bin",
                                                       "HOME": "/home/runner"}
