"""The HTTP API as a real `vyre serve` process, over real HTTP and server-sent events."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable
from typing import Any

import httpx

CONTRACT_KEYS = {"answer", "confidence", "abstained", "known", "sources", "via", "latency_ms", "cost_usd", "timings"}


def sse_events(response: httpx.Response) -> list[tuple[float, dict[str, Any]]]:
    """(seconds since the request was sent, event) for each server-sent event."""
    out = []
    started = response.extensions["vyre_sent"]
    for line in response.iter_lines():
        if line.startswith("data: "):
            out.append((time.perf_counter() - started, json.loads(line[6:])))
    return out


def stream_ask(client: httpx.Client, body: dict[str, Any], **headers: str) -> list[tuple[float, dict[str, Any]]]:
    request = client.build_request("POST", "/v1/ask", json=body, headers=headers)
    sent = time.perf_counter()
    response = client.send(request, stream=True)
    try:
        assert response.status_code == 200, response.read()
        assert response.headers["content-type"].startswith("text/event-stream")
        response.extensions["vyre_sent"] = sent
        return sse_events(response)
    finally:
        response.close()


def test_ask_answers_with_the_contract_and_project_on_each_source(shared_server: Any) -> None:
    server = shared_server
    with server.client() as c:
        r = c.post("/v1/ask", json={"question": "which file had the refund bug"})
    assert r.status_code == 200
    body = r.json()
    assert set(body) == CONTRACT_KEYS
    assert body["abstained"] is False
    assert "app/billing/refunds.py" in body["answer"]
    assert body["confidence"] >= 0.5
    assert {s["project"] for s in body["sources"]} == {"shop-api"}
    assert set(body["sources"][0]) == {"session", "seq", "name", "quote", "ts", "uuid", "project", "cwd"}


def test_sse_first_event_arrives_within_100ms_then_answered_then_result(
    http_server: Callable[..., Any], measure: Callable[..., None]
) -> None:
    server = http_server()
    with server.client() as c:
        c.get("/v1/health")  # a warm connection: what a client that already opened the page has
        by_flag = stream_ask(c, {"question": "which file had the refund bug", "stream": True})
        by_accept = stream_ask(c, {"question": "what did we decide about the portal login"}, accept="text/event-stream")
    for events in (by_flag, by_accept):
        kinds = [e["event"] for _, e in events]
        assert kinds[0] == "memory.thinking" and events[0][1]["stage"] == "understanding"
        assert kinds[-2:] == ["memory.answered", "result"]
        assert set(kinds[:-2]) == {"memory.thinking"}
        assert len({e["id"] for _, e in events}) == 1
        assert set(events[-1][1]["result"]) == CONTRACT_KEYS
    assert "app/billing/refunds.py" in by_flag[-1][1]["result"]["answer"]
    firsts = [by_flag[0][0] * 1000, by_accept[0][0] * 1000]
    measure("http_sse_first_event_ms", {"values": [round(v, 1) for v in firsts]})
    assert max(firsts) < 100, firsts


def test_agent_token_never_receives_another_projects_passages(shared_server: Any, demo: Any) -> None:
    server = shared_server
    with server.client(demo.agent_token) as agent, server.client(demo.owner_token) as owner:
        question = {"question": "what did we decide about the portal login for harlow staff", "k": 20}
        assert any(p["cwd"] == demo.harlow for p in owner.post("/v1/retrieve", json=question).json()["passages"])
        narrowed = {**question, "project_cwds": [demo.harlow]}
        asks = (question, narrowed, {**question, "context": {"project": demo.harlow}})
        for ask in asks:
            passages = agent.post("/v1/retrieve", json=ask).json()["passages"]
            assert all(p["cwd"] == demo.shop for p in passages), passages
            result = agent.post("/v1/ask", json=ask).json()
            assert all(s["cwd"] == demo.shop for s in result["sources"]), result
            assert "harlow" not in json.dumps(result).lower()
        health = agent.get("/v1/health").json()
        assert health["caller"] == {"kind": "agent", "projects": [demo.shop]}


def test_agent_token_gets_no_personal_facts_graph_or_other_sessions(shared_server: Any, demo: Any) -> None:
    server = shared_server
    with server.client(demo.agent_token) as agent, server.client(demo.owner_token) as owner:
        personal = agent.post("/v1/ask", json={"question": "what's my wife's name"}).json()
        assert personal["abstained"] is True and personal["answer"] is None
        assert "dani" not in json.dumps(personal).lower()
        told = owner.post("/v1/ask", json={"question": "what's my wife's name"}).json()
        assert told["answer"] == "Your wife is Dani."
        for path in ("/v1/facts", "/v1/graph"):
            r = agent.get(path)
            assert r.status_code == 403
            assert r.json()["error"]["code"] == "forbidden"
            assert "owner token" in r.json()["error"]["message"]
        harlow_session = next(
            p["session"]
            for p in owner.post(
                "/v1/retrieve", json={"question": "portal login", "project_cwds": [demo.harlow]}
            ).json()["passages"]
        )
        assert agent.get(f"/v1/sessions/{harlow_session}/turns").status_code == 403
        assert owner.get(f"/v1/sessions/{harlow_session}/turns").status_code == 200


def test_request_without_token_to_non_loopback_bind_is_refused(http_server: Callable[..., Any], demo: Any) -> None:
    server = http_server(host="0.0.0.0", token=demo.owner_token)
    with server.client() as anonymous, server.client("not-a-token-at-all-000") as wrong:
        for client in (anonymous, wrong):
            r = client.post("/v1/ask", json={"question": "which file had the refund bug"})
            assert r.status_code == 401
            assert r.headers["www-authenticate"] == "Bearer"
            assert set(r.json()) == {"error"} and r.json()["error"]["code"] == "unauthorized"
            assert "[tokens]" in r.json()["error"]["message"]
    with server.client(demo.owner_token) as owner:
        assert owner.post("/v1/ask", json={"question": "which file had the refund bug"}).json()["abstained"] is False


def test_non_loopback_bind_without_tokens_does_not_start(home_copy: Callable[..., Any], demo: Any) -> None:
    home = home_copy('user_name = "Sam"\n')
    proc = subprocess.run(
        [*demo.vyre, "serve", "--host", "0.0.0.0", "--port", str(demo.port()), "--home", str(home)],
        env=demo.env(home),
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 1
    assert "needs tokens" in proc.stderr and "[tokens]" in proc.stderr


def test_errors_share_one_json_shape(shared_server: Any) -> None:
    server = shared_server
    with server.client() as c:
        cases = [
            (c.post("/v1/ask", content=b"{not json"), 400, "bad_request"),
            (c.post("/v1/ask", json={"question": ""}), 400, "bad_request"),
            (c.post("/v1/ask", json={"question": "x", "now": "yesterday-ish"}), 400, "bad_request"),
            (c.get("/v1/facts/ffffffffffff"), 404, "not_found"),
            (c.get("/v1/graph/entities/Nobody%20Here"), 404, "not_found"),
            (c.post("/v1/graph/entities/Dani/rename", json={}), 400, "bad_request"),
            (c.get("/v1/sessions/no-such-session/turns"), 404, "not_found"),
        ]
    for response, status, code in cases:
        assert response.status_code == status, response.text
        assert set(response.json()) == {"error"}
        assert response.json()["error"]["code"] == code
        assert response.json()["error"]["message"]


def test_facts_list_show_delete_and_the_next_answer_forgets(http_server: Callable[..., Any]) -> None:
    server = http_server()
    with server.client() as c:
        facts = c.get("/v1/facts").json()["facts"]
        wife = next(f for f in facts if f["relation"] == "wife")
        assert wife["object"] == "Dani"
        assert c.get(f"/v1/facts/{wife['id'][:10]}").json()["id"] == wife["id"]
        assert c.delete(f"/v1/facts/{wife['id']}").json()["deleted"]["id"] == wife["id"]
        assert wife["id"] not in {f["id"] for f in c.get("/v1/facts").json()["facts"]}
        assert c.post("/v1/answer", json={"question": "what's my wife's name"}).json()["abstained"] is True


def test_graph_edits_rename_alias_pin_merge_delete(http_server: Callable[..., Any]) -> None:
    server = http_server()
    with server.client() as c:
        graph = c.get("/v1/graph").json()
        names = {e["name"]: e for e in graph["entities"]}
        assert {"Dani", "Emrys", "Bram", "shop-api", "harlow-portal"} <= set(names)
        assert graph["edges"] and all({"src", "dst", "relation"} <= set(x) for x in graph["edges"])
        dani = names["Dani"]["id"]
        assert c.post(f"/v1/graph/entities/{dani}/aliases", json={"alias": "Danielle"}).json()["entity"]["aliases"] == [
            "Danielle"
        ]
        assert c.get("/v1/graph/entities/Danielle").json()["id"] == dani
        assert (
            c.request("DELETE", f"/v1/graph/entities/{dani}/aliases", json={"alias": "Danielle"}).json()["entity"][
                "aliases"
            ]
            == []
        )
        assert c.post(f"/v1/graph/entities/{dani}/pin", json={"pinned": True}).json()["entity"]["pinned"] is True
        renamed = c.post(f"/v1/graph/entities/{dani}/rename", json={"new_name": "Dani Marsh"}).json()["entity"]
        assert renamed["name"] == "Dani Marsh"
        bram = names["Bram"]["id"]
        assert c.delete(f"/v1/graph/entities/{bram}").json() == {"deleted": bram}
        assert "Bram" not in {e["name"] for e in c.get("/v1/graph").json()["entities"]}


def test_turns_around_a_source_and_the_page_and_openapi(shared_server: Any) -> None:
    server = shared_server
    with server.client() as c:
        source = c.post("/v1/ask", json={"question": "which file had the refund bug"}).json()["sources"][0]
        seq = source["seq"]
        around = c.get(f"/v1/sessions/{source['session']}/turns", params={"start": seq - 2, "end": seq + 3}).json()
        last = around["session"]["turn_count"]
        assert [t["seq"] for t in around["turns"]] == list(range(max(0, seq - 2), min(seq + 3, last)))
        assert around["session"]["cwd"].endswith("shop-api")
        page = c.get("/")
        assert page.status_code == 200 and "Vyre Memory" in page.text and "/app.js" in page.text
        assert c.get("/app.js").headers["content-type"].startswith("text/javascript")
        assert c.get("/style.css").headers["content-type"].startswith("text/css")
        spec = c.get("/openapi.json").json()
        assert spec["openapi"].startswith("3.")
        assert {"/v1/ask", "/v1/retrieve", "/v1/answer", "/v1/facts", "/v1/graph", "/v1/health"} <= set(spec["paths"])


def test_tokens_map_to_scopes_and_an_agent_grant_is_never_widened() -> None:
    import pytest

    from vyre_memory.errors import ConfigError
    from vyre_memory.surfaces.scopes import OWNER, Caller, caller_for_token, is_loopback, tokens_from_config

    tokens = tokens_from_config({"tokens": {"o" * 16: "owner", "a" * 16: ["/w/shop"]}})
    assert tokens == {"o" * 16: OWNER, "a" * 16: Caller("agent", ("/w/shop",))}
    assert caller_for_token(None, tokens, loopback=True) == OWNER
    assert caller_for_token("a" * 16, tokens, loopback=True).kind == "agent"
    for token, loopback in ((None, False), ("b" * 16, True), ("b" * 16, False)):
        with pytest.raises(PermissionError):
            caller_for_token(token, tokens, loopback=loopback)
    with pytest.raises(ConfigError, match="shorter than 16"):
        tokens_from_config({"tokens": {"short": "owner"}})
    with pytest.raises(ConfigError, match="owner"):
        tokens_from_config({"tokens": {"x" * 16: 3}})
    agent = Caller("agent", ("/w/shop",))
    assert agent.ask_scope(["/w/portal"]) == {"project_cwds": ["/w/portal"], "agent_projects": ["/w/shop"]}
    assert Caller("project", ("/w/shop",)).ask_scope(None) == {"project_cwds": ["/w/shop"], "agent_projects": None}
    assert [is_loopback(h) for h in ("127.0.0.1", "::1", "localhost", "0.0.0.0", "192.168.1.4")] == [
        True,
        True,
        True,
        False,
        False,
    ]
