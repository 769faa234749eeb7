"""The comment gateway's handler, reduced to what the migration changes (synthetic)."""

import json
import os
import re

# PR-body dependency pins; each match is forwarded as one dispatch input.
PR_BODY_PINS = (
    (
        "ci_image_tag",
        re.compile(r"^ci-image-tag:\s+(\S+)", re.MULTILINE),
        re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}"),
    ),
    (
        "ci_megatron_pr",
        re.compile(r"^ci-megatron-pr:\s+(\S+)", re.MULTILINE),
        re.compile(r"#[0-9]+|[A-Za-z0-9_][A-Za-z0-9_./-]*"),
    ),
    (
        "ci_sglang_pr",
        re.compile(r"^ci-sglang-pr:\s+(\S+)", re.MULTILINE),
        re.compile(r"#[0-9]+|[A-Za-z0-9_][A-Za-z0-9_./-]*"),
    ),
)


class CommentCommandError(Exception):
    pass


def _pr_body_pins(body):
    pins = {}
    for input_name, body_pattern, value_pattern in PR_BODY_PINS:
        match = body_pattern.search(body)
        if match is None:
            continue
        value = match.group(1)
        if value_pattern.fullmatch(value) is None:
            raise CommentCommandError(f"PR body pin {input_name} has an unsupported value: {value!r}")
        pins[input_name] = value
    return pins


def main():
    with open(os.environ["GITHUB_EVENT_PATH"]) as handle:
        event = json.load(handle)
    print(json.dumps(_pr_body_pins(event["issue"]["body"])))


if __name__ == "__main__":
    main()
