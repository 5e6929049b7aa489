// Talking to the server: session token, JSON requests, live updates over a WebSocket.
import * as tg from "./tg.js";

const KEY = "sab-session";
let session = null;
let refreshTimer = null;

export class ApiError extends Error {
  constructor(status, body) {
    const err = (body && body.error) || {};
    super(err.message || `HTTP ${status}`);
    this.status = status;
    this.code = err.code || "error";
    this.reason = err.reason || null;
    this.view = (body && body.view) || null;
    this.retryAfter = err.retry_after || null;
  }
}

function save(s) {
  session = s;
  try { sessionStorage.setItem(KEY, JSON.stringify(s)); } catch (e) { /* storage blocked */ }
  clearTimeout(refreshTimer);
  const ms = Date.parse(s.expires_at) - Date.now();
  if (ms > 0) refreshTimer = setTimeout(() => refresh().catch(() => {}), Math.max(5000, ms * 0.8));
}

async function post(path, body, auth) {
  const r = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...(auth ? { Authorization: auth } : {}) },
    body: JSON.stringify(body || {}),
  });
  const data = await r.json().catch(() => null);
  if (!r.ok) throw new ApiError(r.status, data);
  return data;
}

// Sign in: Telegram initData, else a one-time local code from the URL, else a stored token.
export async function signIn(code) {
  if (tg.inTelegram()) {
    save(await post("/api/session", {}, `tma ${tg.initData()}`));
    return session;
  }
  if (code) {
    save(await post("/api/session", { code }));
    return session;
  }
  try {
    const stored = JSON.parse(sessionStorage.getItem(KEY) || "null");
    if (stored && Date.parse(stored.expires_at) > Date.now() + 5000) {
      session = stored;
      await refresh();
      return session;
    }
  } catch (e) { /* fall through */ }
  return null;
}

export async function refresh() {
  if (!session) return;
  save({ ...session, ...(await post("/api/session", {}, `Bearer ${session.token}`)) });
}

export const current = () => session;

export async function request(method, path, body) {
  const headers = { Authorization: `Bearer ${session ? session.token : ""}` };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let r = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (r.status === 401 && tg.inTelegram()) {
    await signIn();
    headers.Authorization = `Bearer ${session.token}`;
    r = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  }
  const data = await r.json().catch(() => null);
  if (!r.ok) throw new ApiError(r.status, data);
  return data;
}

export const getView = (id) => request("GET", `/api/games/${encodeURIComponent(id)}`);
export const move = (id, version, mv) => request("POST", `/api/games/${encodeURIComponent(id)}/moves`, { version, move: mv });
export const getLog = (id, since) => request("GET", `/api/games/${encodeURIComponent(id)}/log?since=${since}`);
export const lobby = (id, action) => request("POST", `/api/games/${encodeURIComponent(id)}/${action}`, {});
export const rematch = (id) => request("POST", `/api/games/${encodeURIComponent(id)}/rematch`, {});
export const shareResult = (id) => request("POST", `/api/games/${encodeURIComponent(id)}/share`, {});
export const createGame = (body) => request("POST", "/api/games", body);
export const myGames = () => request("GET", "/api/games");
export const catalogue = () => fetch("/api/catalogue").then((r) => r.json());

// Live updates: {"game_id","version"} pushes; (re)connect with backoff, tell the app on open.
export function live(gameId, { onVersion, onOpen, onDown }) {
  let ws = null;
  let stopped = false;
  let delay = 500;
  let timer = null;
  const connect = () => {
    if (stopped) return;
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    ws = new WebSocket(`${proto}//${location.host}/api/games/${encodeURIComponent(gameId)}/ws`);
    ws.onopen = () => {
      ws.send(JSON.stringify({ auth: session ? session.token : "" }));
    };
    ws.onmessage = (ev) => {
      let msg = null;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      if (!msg || typeof msg.version !== "number") return;
      if (!ws.greeted) {
        ws.greeted = true;
        delay = 500;
        onOpen && onOpen(msg.version);
        return;
      }
      onVersion(msg.version);
    };
    ws.onclose = (ev) => {
      if (stopped) return;
      onDown && onDown(ev.code);
      if (ev.code === 4401 && tg.inTelegram()) signIn().catch(() => {});
      timer = setTimeout(connect, delay);
      delay = Math.min(delay * 2, 10000);
    };
  };
  connect();
  return {
    stop() { stopped = true; clearTimeout(timer); if (ws) ws.close(); },
    get open() { return !!(ws && ws.readyState === 1 && ws.greeted); },
  };
}
