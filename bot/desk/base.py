"""What every desk offers the tools and the run layer: tickets with their customer and conversation, help
sections, searches over the mirror, and the writes (a reply the customer reads, an internal change, the links of
a problem ticket and its incidents)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from bot.search import Hit

if TYPE_CHECKING:
    from bot.desk.sla import Due


class DeskError(Exception):
    """A sentence for whoever asked (the model, a lead): what is wrong and what to do. Shown as is."""


class NoSuchTicket(DeskError):
    pass


class DeskUnavailable(DeskError):
    """The desk could not be reached or answered a failure; trying again later may work."""


class DeskRefused(DeskError):
    """The desk answered that this cannot be done (a closed ticket, no permission, a bad token)."""


@dataclass(frozen=True)
class Customer:
    id: str
    name: str
    plan: str | None = None
    seats: int | None = None
    contact_name: str | None = None
    contact_email: str | None = None
    sso_provider: str | None = None
    tier: str | None = None  # Enterprise, Business...: from the desk (Zendesk: a configured organization field)
    notice: str | None = None  # a sentence when the desk could not find or look up the requester or organization


@dataclass(frozen=True)
class Attachment:
    """A file on a message, as the desk lists it: never its content."""
    name: str
    content_type: str | None
    size: int | None  # bytes
    url: str | None  # where a person opens it (Zendesk's content_url)
    inline: bool = False  # an image shown in the message's text

    def line(self) -> str:
        """`saml-trace.log (text/plain, 14.8 KB)`: how a person and the model are told of it."""
        facts = [f for f in (self.content_type, size_of(self.size)) if f]
        return self.name + (f" ({', '.join(facts)})" if facts else "") + (", inline" if self.inline else "")


def size_of(size: object) -> str | None:
    """A file's size for people: `812 bytes`, `14.8 KB`, `2.1 MB`."""
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        return None
    if size < 1024:
        return f"{size} bytes"
    value = float(size)
    for unit in ("KB", "MB", "GB"):
        value /= 1024
        if value < 1024 or unit == "GB":
            break
    return f"{value:.1f} {unit}"


@dataclass(frozen=True)
class Message:
    author: str
    role: str  # customer | staff | internal | unknown (a public message whose author the desk could not name)
    at: datetime
    body: str
    attachments: tuple[Attachment, ...] = ()


@dataclass(frozen=True)
class TicketLink:
    """Another ticket a ticket is linked to: its problem, or one of its incidents."""
    id: str
    title: str
    customer: str | None
    status: str | None


@dataclass(frozen=True)
class TicketView:
    id: str
    title: str
    status: str
    priority: str | None
    assignee: str | None
    tags: list[str]
    created_at: datetime
    updated_at: datetime
    customer: Customer | None
    conversation: list[Message] = field(default_factory=list)
    link: str | None = None  # where a person opens the ticket (Zendesk's agent page); None on the embedded desk
    type: str | None = None  # problem | incident | question | task; None: not set
    problem: TicketLink | None = None  # an incident's problem
    incidents: tuple[TicketLink, ...] = ()  # a problem's incidents
    due: Due | None = None  # the reply target now, as the desk knows it (bot/desk/sla.py)


@dataclass(frozen=True)
class Section:
    id: str  # the anchor the model cites: account-recovery#2
    heading: str
    article_title: str
    body: str
    internal: bool = False  # restricted to a user segment: context for the agent, never cited to a customer


@dataclass(frozen=True)
class WriteReceipt:
    """What a write did: `sent` once the desk holds it, or `queued` when a sender delivers it (Zendesk)."""
    ticket_id: str
    state: str  # sent | queued | duplicate
    detail: dict[str, Any] = field(default_factory=dict)


class Desk(Protocol):
    """A helpdesk as the agent sees it. Searches run over our mirror of the desk (bot/search); reads of one
    ticket go to the desk itself; writes reach the customer exactly once."""

    kind: str  # embedded | zendesk

    def ticket_ids_in(self, text: str) -> list[str]: ...

    def normalise_ticket_id(self, raw: str) -> str: ...

    def ticket(self, ticket_id: str) -> TicketView: ...

    def search_help(self, query: str, limit: int) -> list[tuple[Section, Hit]]: ...

    def search_tickets(self, query: str, *, limit: int, status: str | None, exclude: str | None,
                       like: str | None) -> list[dict[str, Any]]: ...

    def incidents(self, problem_id: str) -> list[dict[str, Any]]: ...

    def check_reply(self, ticket_id: str, message: str) -> None: ...

    def reply(self, ticket_id: str, message: str, *, run_id: int | None, tool_use_id: str | None) -> WriteReceipt: ...

    def update(self, ticket_id: str, *, status: str | None, assignee: str | None, note: str | None,
               run_id: int | None, tool_use_id: str | None, tags: tuple[str, ...] = (),
               replacing: tuple[str, ...] = ()) -> WriteReceipt:
        """An internal change (never seen by the customer): status, assignee, an internal note, and `tags` added
        to the ticket's own. `replacing` names tag prefixes (`intent_`, ...): in the same change, each tag of the
        ticket's that starts with one of them and is not in `tags` is removed; no other tag is touched."""
        ...

    def link_incidents(self, problem_id: str, incident_ids: list[str], *, run_id: int | None,
                       key: str | None) -> WriteReceipt:
        """Make `problem_id` a problem and each of `incident_ids` its incident; linking again changes nothing.
        `key` (with `run_id`) names the decision, so a replayed call finds the writes it recorded."""
        ...

    def customer_text(self, message: str) -> str: ...
