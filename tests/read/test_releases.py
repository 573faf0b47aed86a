"""Which turns did, reported or asked for a release or deploy (`read.releases`), and their keys."""

from __future__ import annotations

import pytest

from vyre_memory.contract import ASSISTANT, TOOL_CALL, TOOL_OUTPUT, TYPED, Turn
from vyre_memory.read.moments import moments_in
from vyre_memory.read.releases import release_in

CWD = "/home/sam/code/shop-api"


def _turn(kind: str, text: str, seq: int = 4) -> Turn:
    return Turn(1, "s1", seq, ("u1",), "user", kind, "", text, "2026-10-02T09:00:00.000Z", "interactive", CWD)


def _bash(command: str) -> Turn:
    return _turn(TOOL_CALL, f"Bash\ncommand: {command}\ndescription: run it")


@pytest.mark.parametrize(
    "command",
    [
        "make release",
        "npm run deploy",
        "./scripts/deploy.sh production",
        "fly deploy --app shop-api",
        "git tag -a v1.4.0 -m 'shop-api 1.4.0' && git push origin v1.4.0",
        "git push origin main --tags",
        "helm upgrade shop-api ./chart -n prod",
        "kubectl rollout undo deployment/shop-api",
        "kubectl set image deployment/shop-api api=registry/shop-api:1.4.0",
        "docker push registry.example.com/shop-api:1.4.0",
        "terraform apply -auto-approve",
        "twine upload dist/*",
        "gh release create v1.4.0 --notes-file CHANGES.md",
        'git commit -qam "release 1.4.0" && git tag -a v1.4.0 -m "1.4.0"',
        "make deploy-staging",
        "./deploy-prod.sh",
        "yarn deploy-prod",
        "./scripts/release_v2.sh",
        "gh workflow run release.yml",
        "npx semantic-release",
        "git push heroku main",
        "vercel --prod",
        "kubectl apply -f k8s/",
        "eas update --branch production",
        "railway up",
        "cd /srv/app &&\n ./scripts/deploy.sh prod",
        "sudo FOO=1 make release",
        "bundle exec fastlane android deploy version:2.5.1 track:production",  # a runner runs the program
        "poetry run ./scripts/release.sh",
    ],
)
def test_a_command_that_releases_or_deploys_is_a_release(command: str) -> None:
    found = release_in(_bash(command))
    assert found is not None and found.seqs == (4,)  # derive pairs it with its output (tool_output)
    assert "shop-api" in found.text and command.split()[0] in found.text


@pytest.mark.parametrize(
    "command",
    [
        "cargo build --release",
        "./gradlew assembleRelease",
        "git tag -l",
        "git push origin main",
        "ls docs/release-notes/",
        "pytest tests/test_deploy_config.py",
        "spark-submit jobs/nightly.py",
        "cat releases.yaml",
        "kubectl get deploy",
        "kubectl rollout status deployment/shop-api",
        "grep -rn deploy src/",
        "git log --grep release",
        'git commit -m "Fix deploy script path"',
        "cat scripts/deploy.sh",
        "vim deploy.py",
        "gh release list",
        "git tag | sort -V",
        "git tag --sort=-v:refname",
        "git tag -ln",
        "git push origin fix-1.2-crash",
        "npm publish --dry-run",
        "terraform plan",
        "terraform apply -destroy",
        "pytest -k release",
        "echo ship",
        "git checkout release",
        "python -m pytest tests/test_release.py",
        "rm -rf release/",
        "bundle exec rspec spec/deploy_spec.rb",
        "uv run pytest -k release",
    ],
)
def test_a_command_that_only_names_a_release_is_not_one(command: str) -> None:
    assert release_in(_bash(command)) is None


def test_a_command_is_read_as_the_agent_wrote_it() -> None:
    described = _turn(TOOL_CALL, "Bash\ndescription: Ship it\ncommand: make release\ntimeout: 600")
    listed = _turn(TOOL_CALL, 'shell\ncommand: ["bash", "-lc", "helm upgrade api ./chart"]')
    argv = _turn(TOOL_CALL, 'shell\ncommand: ["git", "tag", "-a", "v1.4.0", "-m", "1.4.0"]')
    assert all(release_in(t) is not None for t in (described, listed, argv))
    # a file's content that holds a command line is not a command
    written = _turn(TOOL_CALL, "Write\nfile_path: /srv/app/Makefile\ncontent: all:\n\techo\ncommand: make release")
    assert release_in(written) is None


def test_a_tool_call_without_a_command_is_not_a_release() -> None:
    edit = _turn(TOOL_CALL, "Edit\nfile_path: /srv/app/deploy.py\nold_string: a\nnew_string: b")
    assert release_in(edit) is None
    assert release_in(_turn(TOOL_OUTPUT, "deployed to production")) is None


def test_reports_and_requests_are_releases_and_their_key_names_the_version() -> None:
    report = release_in(_turn(ASSISTANT, "Deployed v2.3.1 to production; health checks are green."))
    request = release_in(_turn(TYPED, "looks good, ship it as 2.3.1 today"))
    assert report is not None and report.seqs == (4,) and report.text.startswith("2.3.1 shop-api Deployed")
    assert request is not None and request.text.startswith("2.3.1 shop-api looks good")
    assert release_in(_turn(ASSISTANT, "The lock on the orders table is held by a report query.")) is None
    assert release_in(_turn(TYPED, "why is the orders list slow?")) is None
    for said in (
        "draft the release notes and check the deploy config",
        "Release build crashes on startup",
        "release the lock before returning",
        "and publish the event to the queue",
        "so deploy.yaml has the wrong image?",
        "don't ship it yet",
        "the build and deploy steps are slow",
    ):
        assert release_in(_turn(TYPED, said)) is None, said
    for said in (
        "the transaction is rolled back on any error",
        "the mutex is released when the handler returns",
        "each event is published to Kafka",
        "I haven't deployed anything yet, the tests are red",
    ):
        assert release_in(_turn(ASSISTANT, said)) is None, said
    for asked in ("deploy this and tag it", "yep v2.3.1, run make release", "tests pass. please release 2.3.1"):
        assert release_in(_turn(TYPED, asked)) is not None


def test_a_version_told_as_done_is_a_release_whoever_tells_it() -> None:
    for kind, said in (
        (TYPED, "canary went through 10 and 50 without a restart. So 2.3.1 is out."),
        (TYPED, "2.3.1 is out 🎉"),
        (ASSISTANT, "Done: **shop-api v2.3.1 is at 100%** as of 10:32."),
        (ASSISTANT, "shop-api v0.3.0 is running in production (2 pods)."),
        (ASSISTANT, "> **shop-api 1.8.1** is in prod (18/02, 15:50)."),
        (TYPED, "make a ticket note for that. this one goes out in 3.15.2 on thursday"),  # what goes out in it
        (ASSISTANT, "The refund fix ships in v2.4.0."),
    ):
        assert release_in(_turn(kind, said)) is not None, said
    for kind, said in (
        (TYPED, "when 2.3.1 is out, ping me"),  # a condition
        (TYPED, "if it goes out in 3.15.2 we are fine"),
        (TYPED, "does the fix go out in 3.15.2?"),
        (TYPED, "it won't go out in 3.15.2, too risky"),
        (TYPED, "does it go out in 3.15.2 or 3.16?"),
        (TYPED, "ubuntu 22.04 ships with 3.10 by default"),  # another program's version
        (TYPED, "which version is in prod right now?"),  # a question
        (TYPED, "is 2.3.1 in prod yet?"),
        (TYPED, "2.3.1 is not out yet"),
        (TYPED, "2.3.1 is out of date already"),
        (TYPED, "the bug is in prod too"),  # no version told
        (TYPED, "I got promoted! what version of node do we need?"),  # the assistant's report words, said by the person
        (TYPED, "the lock is released before the version check"),
        (ASSISTANT, "The same flag is in prod, so the bug reproduces there."),
        (ASSISTANT, "Memory is at 100% on the build runner."),
    ):
        assert release_in(_turn(kind, said)) is None, said


def test_the_releases_of_turns_keep_their_order() -> None:
    turns = [_turn(TYPED, "deploy it", 1), _turn(TYPED, "thanks", 2), _bash("make release")]
    found = moments_in(release_in, turns, {"s1": "fix the refund webhook"}.__getitem__)
    assert [r.seqs for r in found] == [(1,), (4,)]
    assert all(r.text.endswith("fix the refund webhook") for r in found)  # what the session was for
