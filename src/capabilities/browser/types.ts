/** The browser bridge as other layers see it (types only): status, the bridge's wire protocol, action results. */

/** GET /api/browser. */
export interface BrowserStatus {
  /** Whether an extension holds the /browser socket now. */
  connected: boolean;
  /** The current pairing token (also written into the folder's pairing.json, so nobody types it). */
  token: string;
  /** The folder to load in chrome://extensions with "Load unpacked". */
  extensionPath: string;
  /** The id Chrome gives the extension loaded from that folder (pinned by the manifest's key). */
  extensionId: string;
  /** The only Origin the /browser socket accepts. */
  origin: string;
  /** The connected extension's version and user agent, when connected. */
  client?: { version: string; userAgent: string; connectedAt: string; lastSeenAt: string };
}

/** A request the engine sends the extension: one operation on one tab. */
export interface BridgeRequest {
  id: number;
  op: string;
  args: Record<string, unknown>;
}

/** The extension's answer to one request. `ms` is the browser's own time (for the bench). */
export type BridgeResponse =
  | { id: number; ok: true; result: ActionResult; ms?: number }
  | { id: number; ok: false; error: string; ms?: number };

/** What one operation returns: text for the model, and optionally an image, the tab it acted on and a thumbnail. */
export interface ActionResult {
  text: string;
  tabId?: number;
  url?: string;
  /** base64 JPEG the model sees (browser_screenshot). */
  image?: string;
  /** A small base64 JPEG of the tab after the action, for the browser.action event. */
  thumbnail?: string;
  /** The thumbnail comes after the answer, in a `thumbnail` frame of the same id (browser_snapshot). */
  thumbnailFollows?: boolean;
}

/** An answer as the engine holds it: `thumbnail` settles when a following thumbnail frame arrives (undefined if none comes). */
export interface BridgeAnswer {
  result: ActionResult;
  ms: number;
  thumbnail?: Promise<string | undefined>;
}

/** Frames the extension sends on its own: who it is, and the keep-alive. */
export type ExtensionMessage = { type: 'hello'; version: string; userAgent: string } | { type: 'ping' } | { type: 'thumbnail'; id: number; thumbnail?: string } | BridgeResponse;
