"""`rocm-deps comment`: put what this run tested on the pull request, as this suite's manifest
comment (docs/architecture.md, *What was tested*) that `merge-check --require-tested` reads back."""

from __future__ import annotations

from rocm_deps.config.outputs import COMMENT
from rocm_deps.errors import EXIT_OK, UsageError
from rocm_deps.github.on_demand import ensure_github, offer_renderer
from rocm_deps.manifest import text as manifest_report
from rocm_deps.manifest.comment import Written, collect, named_now_of, set_status, upsert
from rocm_deps.manifest.settings import CommentSettings
from rocm_deps.messages import needs_token
from rocm_deps.reports.output import publish
from rocm_deps.runner import Runner


def run(settings: CommentSettings, runner: Runner) -> int:
    if not settings.api.token:
        raise UsageError(needs_token("comment writes on the pull request",
                                     "pull-requests: write", settings.api.empty_variable))
    ensure_github(settings.api, runner)
    offer_renderer(settings.api, runner)  # a description rendered here, not by GitHub
    from rocm_deps.github.api import GitHubApi

    api = GitHubApi(settings.api.url, settings.api.token, settings.config.api)
    tested, queued, read = collect(settings, api)
    body = manifest_report.comment_body(tested)
    # A merge group's run is no pull request's: its status goes on the group's commit, where
    # the queue's required check looks, and no manifest comment is written.
    written = (upsert(api, tested, body, settings.bot_login) if queued is None
               else Written("not needed", body, []))
    action, ignored = written.action, written.ignored
    # Also when nothing is named: `success`, so that a required `rocm-deps: <suite>` check
    # does not wait forever on pull requests that name nothing.
    named, errors = named_now_of(api, tested, settings.config, queued, read)
    status, refused = set_status(api, tested, written.url, named, errors)
    if refused is not None:
        runner.warning(refused, title="rocm-deps: comment")
    if ignored:
        runner.warning(f"comment(s) {', '.join(map(str, ignored))} carry the manifest marker "
                       f"but are not by {settings.bot_login}: left alone and not trusted",
                       title="rocm-deps: look-alike manifest")
    document = {"action": action, "pull_request": tested.number, "suite": tested.suite,
                "ignored_comments": ignored,
                "status": {"context": status.context, "state": status.state,
                           "description": status.description, "written": refused is None},
                "tested": {name: entry.to_json()
                           for name, entry in tested.manifest.tested.items()}}
    publish(runner, {COMMENT: action}, written.body, document,
            manifest_report.text(action, tested, ignored), settings.output_format)
    return EXIT_OK
