"""server/auth.py: account parsing, token matching and the handler's answers, called directly
(the e2e module ``test_skills_auth_e2e`` runs it inside a real ``langgraph dev``)."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph_sdk import Auth

from graphs.context import ACT_AS_PERMISSION, APPROVE_PERMISSION
from graphs.orders.thread_flag import AWAITING_APPROVER, DECIDED_BY_KEY, FLAG_KEY
from server import auth as auth_module
from server.auth import Account, AuthSettings, authenticate, match, parse_accounts

ALICE = "alice-token-0123456789"
SVC = "service-token-0123456789"


@pytest.fixture
def accounts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_AUTH_TOKENS", f"alice:{ALICE}")
    monkeypatch.setenv("AGENT_AUTH_SERVICE_TOKENS", f"rpc-adapter:{SVC}")
    auth_module._accounts.cache_clear()
    yield
    auth_module._accounts.cache_clear()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("alice", "entry 1 is not 'name:token'"),
        (f"alice:{ALICE},:x", "entry 2 is not 'name:token'"),
        (f"../etc:{ALICE}", "not a usable user id"),
        ("alice:short", "shorter than 16"),
    ],
)
def test_bad_account_lists_are_refused_with_the_entry(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message) as err:
        parse_accounts(text, service=False, variable="AGENT_AUTH_TOKENS")
    assert "AGENT_AUTH_TOKENS" in str(err.value)
    assert ALICE not in str(err.value)  # never echo a token


def test_accounts_parse_and_a_shared_token_is_refused() -> None:
    assert parse_accounts(f" alice : {ALICE} ,, ", service=False, variable="V") == [
        Account("alice", ALICE, False)
    ]
    with pytest.raises(ValueError, match="share a token"):
        AuthSettings(tokens=f"alice:{ALICE}", service_tokens=f"svc:{ALICE}").accounts()


def test_match_finds_the_one_account() -> None:
    accounts = [Account("alice", ALICE), Account("svc", SVC, True)]
    assert match(SVC, accounts) == accounts[1]
    assert match(ALICE + "x", accounts) is None
    assert match("", accounts) is None


async def test_authenticate_maps_tokens_to_accounts(accounts: None) -> None:
    alice = await authenticate(f"Bearer {ALICE}")
    assert alice["identity"] == "alice" and alice["permissions"] == []
    service = await authenticate(f"bearer {SVC}")
    assert service["identity"] == "rpc-adapter" and service["permissions"] == [ACT_AS_PERMISSION]
    for header in (None, "", "Bearer ", f"Basic {ALICE}", "Bearer nope"):
        with pytest.raises(Auth.exceptions.HTTPException) as err:
            await authenticate(header)
        assert err.value.status_code == 401


async def test_switched_on_without_accounts_it_refuses_everyone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("AGENT_AUTH_TOKENS", raising=False)
    monkeypatch.delenv("AGENT_AUTH_SERVICE_TOKENS", raising=False)
    monkeypatch.chdir("/")  # no .env to read
    auth_module._accounts.cache_clear()
    try:
        with pytest.raises(Auth.exceptions.HTTPException) as err:
            await authenticate(f"Bearer {ALICE}")
        assert err.value.status_code == 401 and "AGENT_AUTH_TOKENS" in str(err.value.detail)
    finally:
        auth_module._accounts.cache_clear()


class _Ctx:
    def __init__(self, identity: str, permissions: list[str], resource: str = "store") -> None:
        self.user = type("U", (), {"identity": identity})()
        self.permissions, self.resource, self.action = permissions, resource, "search"


async def test_thread_rules_set_and_enforce_the_owner() -> None:
    value: dict[str, Any] = {"thread_id": "t", "metadata": {}}
    metadata = value["metadata"]
    assert await auth_module.own_new_thread(_Ctx("alice", []), value) == {"owner": "alice"}  # type: ignore[arg-type]
    assert metadata == {"owner": "alice"}  # the server's own dict, changed in place
    claimed: dict[str, Any] = {"metadata": {"owner": "bob"}}
    await auth_module.own_new_thread(_Ctx("alice", []), claimed)  # type: ignore[arg-type]
    assert claimed["metadata"]["owner"] == "alice"
    update: dict[str, Any] = {"thread_id": "t", "metadata": {"owner": "bob"}}
    assert await auth_module.own_threads_only(_Ctx("alice", []), update) == {"owner": "alice"}  # type: ignore[arg-type]
    assert update["metadata"]["owner"] == "alice"


async def test_everything_else_is_for_services() -> None:
    assert await auth_module.services_only(_Ctx("svc", [ACT_AS_PERMISSION]), {}) is None  # type: ignore[arg-type]
    with pytest.raises(Auth.exceptions.HTTPException) as err:
        await auth_module.services_only(_Ctx("alice", []), {})  # type: ignore[arg-type]
    assert err.value.status_code == 403 and "store.search" in str(err.value.detail)


async def test_verified_studio_users_are_developers_with_full_access(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("LANGSMITH_LANGGRAPH_API_VARIANT", raising=False)  # hosted
    studio = _Ctx("langgraph-studio-user", [])
    studio.user = Auth.types.StudioUser("langgraph-studio-user")  # type: ignore[assignment]
    assert await auth_module.services_only(studio, {}) is None  # type: ignore[arg-type]
    assert await auth_module.own_threads_only(studio, {"thread_id": "t"}) is None  # type: ignore[arg-type]
    created: dict[str, Any] = {"metadata": {}}
    await auth_module.own_new_thread(studio, created)  # type: ignore[arg-type]
    assert created["metadata"]["owner"] == "langgraph-studio-user"


async def test_under_langgraph_dev_a_studio_user_is_an_ordinary_user(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # langgraph dev accepts the Studio scheme without checking it: no privileges there.
    monkeypatch.setenv("LANGSMITH_LANGGRAPH_API_VARIANT", "local_dev")
    studio = _Ctx("langgraph-studio-user", [])
    studio.user = Auth.types.StudioUser("langgraph-studio-user")  # type: ignore[assignment]
    with pytest.raises(Auth.exceptions.HTTPException):
        await auth_module.services_only(studio, {})  # type: ignore[arg-type]
    assert await auth_module.own_threads_only(studio, {}) == {"owner": "langgraph-studio-user"}  # type: ignore[arg-type]


async def test_approvers_hold_orders_approve(monkeypatch: pytest.MonkeyPatch) -> None:
    bob = "bob-token-0123456789ab"
    monkeypatch.setenv("AGENT_AUTH_TOKENS", f"alice:{ALICE},bob:{bob}")
    monkeypatch.setenv("AGENT_AUTH_APPROVERS", " bob ")
    auth_module._accounts.cache_clear()
    auth_module._approvers.cache_clear()
    try:
        assert (await authenticate(f"Bearer {bob}"))["permissions"] == [APPROVE_PERMISSION]
        assert (await authenticate(f"Bearer {ALICE}"))["permissions"] == []
        monkeypatch.setenv("AGENT_AUTH_APPROVERS", "bob,carol")
        auth_module._approvers.cache_clear()
        with pytest.raises(Auth.exceptions.HTTPException) as err:
            await authenticate(f"Bearer {bob}")
        assert err.value.status_code == 500 and "carol has no account" in str(err.value.detail)
    finally:
        auth_module._accounts.cache_clear()
        auth_module._approvers.cache_clear()


def _run(input: Any = None, resume: Any = None) -> dict[str, Any]:
    command = {"resume": resume} if resume is not None else None
    return {"thread_id": "t", "metadata": {}, "kwargs": {"input": input, "command": command}}


async def test_approvers_reach_only_threads_awaiting_an_approver() -> None:
    approver = _Ctx("bob", [APPROVE_PERMISSION])
    buyer = _Ctx("alice", [])
    awaiting = {"$or": [{"owner": "bob"}, {FLAG_KEY: AWAITING_APPROVER}]}
    seen = {"$or": [*awaiting["$or"], {DECIDED_BY_KEY: "bob"}]}
    assert await auth_module.approvers_see_pending(approver, {"thread_id": "t"}) == seen  # type: ignore[arg-type]
    assert await auth_module.approvers_see_pending(buyer, {"thread_id": "t"}) == {"owner": "alice"}  # type: ignore[arg-type]
    resume = _run(resume={"decisions": [{"type": "approve"}]})
    assert await auth_module.approvers_resume_pending(approver, resume) == awaiting  # type: ignore[arg-type]
    # A new message on someone else's thread is not answering an approval.
    chat = _run(input={"messages": [{"role": "user", "content": "hi"}]})
    assert await auth_module.approvers_resume_pending(approver, chat) == {"owner": "bob"}  # type: ignore[arg-type]
    assert await auth_module.approvers_resume_pending(buyer, resume) == {"owner": "alice"}  # type: ignore[arg-type]
    # An approver's run settles the flag, and may change nothing else of another's thread.
    flag = {"thread_id": "t", "metadata": {FLAG_KEY: "decided", DECIDED_BY_KEY: "bob"}}
    assert await auth_module.approvers_settle_the_flag(approver, flag) == {  # type: ignore[arg-type]
        FLAG_KEY: AWAITING_APPROVER
    }
    other = {"thread_id": "t", "metadata": {FLAG_KEY: "decided", "owner": "bob"}}
    assert await auth_module.approvers_settle_the_flag(approver, other) == {"owner": "bob"}  # type: ignore[arg-type]
    assert await auth_module.own_threads_only(approver, {"thread_id": "t"}) == {"owner": "bob"}  # type: ignore[arg-type]
