// Telegram WebApp, feature-detected: every call works (as a no-op) with window.Telegram absent.
const W = () => (window.Telegram && window.Telegram.WebApp) || null;

export const inTelegram = () => {
  const w = W();
  return !!(w && typeof w.initData === "string" && w.initData.length > 0);
};
export const initData = () => (inTelegram() ? W().initData : "");
export const unsafe = () => (W() && W().initDataUnsafe) || {};
export const platformVersion = () => (W() && W().version) || "";

function call(path, ...args) {
  const w = W();
  if (!w) return undefined;
  let target = w;
  const parts = path.split(".");
  const name = parts.pop();
  for (const p of parts) {
    target = target && target[p];
  }
  if (!target || typeof target[name] !== "function") return undefined;
  try {
    return target[name](...args);
  } catch (e) {
    return undefined; // an older client without this method: nothing to do
  }
}

export function applyTheme() {
  const w = W();
  const root = document.documentElement;
  const params = (w && w.themeParams) || {};
  for (const [key, value] of Object.entries(params)) {
    if (typeof value === "string") root.style.setProperty(`--tg-theme-${key.replace(/_/g, "-")}`, value);
  }
  const scheme = (w && w.colorScheme) ||
    (window.matchMedia && matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light");
  root.dataset.scheme = scheme;
}

// Is the client at least this Mini Apps version? False outside Telegram and on clients
// that cannot say (every newer call is feature-detected through this).
export function versionAtLeast(v) {
  const w = W();
  if (!inTelegram() || typeof w.isVersionAtLeast !== "function") return false;
  try { return !!w.isVersionAtLeast(v); } catch (e) { return false; }
}

export function start() {
  applyTheme();
  call("ready");
  call("expand");
  call("onEvent", "themeChanged", applyTheme);
  // Mini Apps 8.0: full screen and the insets Telegram's own controls take in it
  for (const name of ["safeAreaChanged", "contentSafeAreaChanged", "fullscreenChanged"]) {
    call("onEvent", name, applyInsets);
  }
  applyInsets();
  if (new URLSearchParams(location.search).get("mode") === "fullscreen" && !isFullscreen()) {
    toggleFullscreen();
  }
}

// --- Mini Apps 8.0: full screen, safe areas, home screen --------------------------------

export const canFullscreen = () => versionAtLeast("8.0") && typeof W().requestFullscreen === "function";
export const isFullscreen = () => !!(W() && W().isFullscreen);

export function toggleFullscreen() {
  if (!canFullscreen()) return false;
  call(isFullscreen() ? "exitFullscreen" : "requestFullscreen");
  return true;
}

// The device's and Telegram's insets as CSS variables (style.css pads the page by them);
// the official script sets the same variables, this keeps them right on every event.
function applyInsets() {
  const w = W();
  const root = document.documentElement;
  for (const [inset, prefix] of [[w && w.safeAreaInset, "--tg-safe-area-inset-"],
    [w && w.contentSafeAreaInset, "--tg-content-safe-area-inset-"]]) {
    if (!inset || typeof inset !== "object") continue;
    for (const side of ["top", "bottom", "left", "right"]) {
      if (Number.isFinite(inset[side])) root.style.setProperty(prefix + side, `${inset[side]}px`);
    }
  }
  root.classList.toggle("fullscreen", isFullscreen());
}

// "added", "missed" (not yet on the home screen), "unknown" or "unsupported".
export function homeScreenStatus() {
  return new Promise((resolve) => {
    if (!versionAtLeast("8.0") || typeof W().checkHomeScreenStatus !== "function") {
      resolve("unsupported");
      return;
    }
    setTimeout(() => resolve("unknown"), 2000); // a client that never answers
    try { W().checkHomeScreenStatus((status) => resolve(status || "unknown")); } catch (e) { resolve("unsupported"); }
  });
}
export const addToHomeScreen = () => call("addToHomeScreen");

// Mini Apps 8.0: share a message the bot prepared (savePreparedInlineMessage) into any chat.
export const canShareMessage = () => versionAtLeast("8.0") && typeof W().shareMessage === "function";
export const shareMessage = (id) => call("shareMessage", id);

export const swipes = {
  off: () => call("disableVerticalSwipes"),
  on: () => call("enableVerticalSwipes"),
};

export const haptic = {
  light: () => call("HapticFeedback.impactOccurred", "light"),
  error: () => call("HapticFeedback.notificationOccurred", "error"),
  success: () => call("HapticFeedback.notificationOccurred", "success"),
  select: () => call("HapticFeedback.selectionChanged"),
};

export const hasMainButton = () => !!(inTelegram() && W().MainButton && W().MainButton.setText);
let mainHandler = null;
export function mainButton(text, handler) {
  if (!hasMainButton()) return false;
  const mb = W().MainButton;
  if (mainHandler) call("MainButton.offClick", mainHandler);
  mainHandler = null;
  if (!text) {
    call("MainButton.hide");
    return true;
  }
  mainHandler = handler;
  call("MainButton.setText", text);
  call("MainButton.onClick", handler);
  call("MainButton.enable");
  call("MainButton.show");
  return !!mb;
}

let backHandler = null;
export function backButton(handler) {
  if (!W() || !W().BackButton) return;
  if (backHandler) call("BackButton.offClick", backHandler);
  backHandler = handler || null;
  if (handler) {
    call("BackButton.onClick", handler);
    call("BackButton.show");
  } else {
    call("BackButton.hide");
  }
}
