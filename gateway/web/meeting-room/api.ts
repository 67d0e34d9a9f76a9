/** What POST /api/v1/meeting/{id}/join grants: a LiveKit token for one participant. */
export interface JoinGrant {
  participantId: string;
  token: string;
  serverUrl: string;
  expiresAt: string;
  meeting: { id: string; title: string; status: string };
  /** From the personal link; `guest` for the plain join URL. */
  role: "host" | "attendee" | "guest";
  /** The credential of the room's own API (X-Room-Session): chat, and host actions for hosts. */
  roomSession: string;
}

export type JoinRefusal = {
  ok: false;
  /** The HTTP status; 0 when the server could not be reached at all. */
  status: number;
  /** The API's own message, shown as is; a generic one when the answer had none. */
  error: string;
  requestId?: string;
  /** From Retry-After on 429. */
  retryAfterSeconds?: number;
};

export type JoinResult = { ok: true; grant: JoinGrant } | { ok: true; lobbyTicket: string } | JoinRefusal;

const fallbackMessages: Record<number, string> = {
  0: "The server could not be reached. Check your connection and try again.",
  400: "Your name was not accepted.",
  403: "You cannot join this meeting with this link.",
  404: "This meeting does not exist.",
  409: "This meeting is full.",
  410: "This meeting can no longer be joined.",
  429: "Too many attempts to join. Wait a moment and try again.",
  503: "The meeting service is temporarily unavailable. Try again in a moment.",
};

/**
 * Asks the gateway for a join grant, as any API client would: the page holds no rule of its own
 * beyond checking the name early, and shows the API's `error` text when it refuses.
 */
export async function requestJoinGrant(meetingId: string, displayName: string, link?: string): Promise<JoinResult> {
  // Same-origin credentials: the browser session's HttpOnly cookie, so a removed person stays out.
  return answerOf(await post(`/api/v1/meeting/${encodeURIComponent(meetingId)}/join`, { displayName, ...(link ? { link } : {}) }));
}

/** Who a personal link is for (POST /meeting/{id}/link-holder): its role, and the name to prefill. */
export interface LinkHolder {
  role: "host" | "attendee" | "guest";
  name: string | null;
}

export async function requestLinkHolder(meetingId: string, link: string): Promise<{ ok: true; holder: LinkHolder } | JoinRefusal> {
  const response = await post(`/api/v1/meeting/${encodeURIComponent(meetingId)}/link-holder`, { link });
  if (response instanceof Response && response.ok) {
    const body = (await response.json().catch(() => ({}))) as Partial<LinkHolder>;
    if (body.role === "host" || body.role === "attendee" || body.role === "guest") {
      return { ok: true, holder: { role: body.role, name: typeof body.name === "string" ? body.name : null } };
    }
  }
  return answerOf(response) as Promise<JoinRefusal>;
}

/** Whether someone was removed from the meeting from this browser session (GET /meeting/{id}/visitor); undefined when unknown. */
export async function requestVisitorStanding(meetingId: string): Promise<{ removed: boolean } | undefined> {
  try {
    const response = await fetch(`/api/v1/meeting/${encodeURIComponent(meetingId)}/visitor`, {
      headers: { accept: "application/json" },
      credentials: "same-origin",
      cache: "no-store",
    });
    const body = (await response.json().catch(() => ({}))) as { removed?: unknown };
    return response.ok && typeof body.removed === "boolean" ? { removed: body.removed } : undefined;
  } catch {
    return undefined;
  }
}

export type LobbyResult = { ok: true; status: "waiting" | "locked" | "denied" } | { ok: true; status: "admitted"; grant: JoinGrant } | JoinRefusal;

/** How a wait in the lobby stands (POST /meeting/{id}/lobby/status). */
export async function requestLobbyStatus(meetingId: string, ticket: string): Promise<LobbyResult> {
  const response = await post(`/api/v1/meeting/${encodeURIComponent(meetingId)}/lobby/status`, { ticket });
  if (response instanceof Response && response.ok) {
    const body = (await response.json().catch(() => ({}))) as { status?: string; grant?: unknown };
    if (body.status === "admitted" && isGrant(body.grant)) return { ok: true, status: "admitted", grant: body.grant };
    if (body.status === "waiting" || body.status === "locked" || body.status === "denied") return { ok: true, status: body.status };
  }
  return answerOf(response) as Promise<JoinRefusal>;
}

async function post(url: string, body: unknown): Promise<Response | undefined> {
  try {
    return await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(body),
      credentials: "same-origin",
      cache: "no-store",
    });
  } catch {
    return undefined;
  }
}

async function answerOf(response: Response | undefined): Promise<JoinResult> {
  if (!response) return { ok: false, status: 0, error: fallbackMessages[0]! };
  const body: unknown = await response.json().catch(() => undefined);
  if (response.ok && isGrant(body)) return { ok: true, grant: body };
  const ticket = (body as { lobbyTicket?: unknown } | undefined)?.lobbyTicket;
  if (response.status === 202 && typeof ticket === "string") return { ok: true, lobbyTicket: ticket };
  const record = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  const retryAfter = Number(response.headers.get("retry-after"));
  return {
    ok: false,
    status: response.ok ? 502 : response.status,
    error:
      typeof record.error === "string" && record.error.trim()
        ? record.error
        : (fallbackMessages[response.status] ?? "Something went wrong while joining. Try again in a moment."),
    ...(typeof record.requestId === "string" ? { requestId: record.requestId } : {}),
    ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterSeconds: Math.ceil(retryAfter) } : {}),
  };
}

function isGrant(body: unknown): body is JoinGrant {
  if (typeof body !== "object" || body === null) return false;
  const grant = body as Record<string, unknown>;
  return typeof grant.token === "string" && typeof grant.serverUrl === "string" && typeof grant.participantId === "string";
}
