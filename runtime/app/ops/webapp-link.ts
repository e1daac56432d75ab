/**
 * The senior's tablet is set up once by opening a link (docs/webapp.md): `…/app/#key=<key>`
 * per `webapp` key, at `app.public_url`; without it, at the address the request came to,
 * unless that is this machine's own (`localhost`, which a tablet takes for itself): then at
 * the host's network address (platform/http/household-address.ts). The web app
 * keeps the key from the fragment and removes it from the address bar. Each link comes with
 * a QR code of it (SVG), so the tablet's camera opens it and nobody types a key.
 * A web app key made while the service runs (the Household page's "Make a new tablet link",
 * `POST /api/v1/admin/keys` with role `webapp`) is stored as a digest only: its link is
 * answered once, beside the key (`webappSetup`), and afterwards only its name is listed here.
 */
import type { AppContext } from "../context";
import { NotFoundError, ValidationError } from "../../platform/core/errors";
import { lazyModule } from "../../platform/core/lazy-module";
import { isLoopbackHost } from "../../platform/http/household-address";
import { listManagedKeys } from "../../platform/auth/managed-keys.store";

// Drawn only when an admin opens the set-up link.
const qrcode = lazyModule(() => require("qrcode") as typeof import("qrcode"));

export const NO_KEY =
  "No web app key in the settings: make the tablet's link on the Household page (Devices, The senior's tablet: its link is shown once), " +
  'or set CAREFLOW_WEBAPP_KEY or add an api_keys entry with permissions ["webapp"].';

export interface WebAppLink {
  key_name: string;
  url: string;
  /** The link as a QR code: an SVG document, black on white with the standard quiet zone. */
  qr_svg: string;
}

/** Error correction M (15 %): a phone camera reads it off a screen or a smudged print-out. */
export const qrSvg = (text: string): Promise<string> => qrcode().toString(text, { type: "svg", errorCorrectionLevel: "M", margin: 4 });

/** Where the links point: the setting, the request's own address when a device can reach it, else the household's. */
export function linkBase(ctx: AppContext, requestBase: string): string {
  const configured = ctx.settings.app.public_url;
  if (configured) return configured.replace(/\/+$/, "");
  if (!isLoopbackHost(new URL(requestBase).host)) return requestBase.replace(/\/+$/, "");
  return ctx.address?.current()?.base ?? requestBase.replace(/\/+$/, "");
}

const linkOf = (base: string, key: string): string => `${base}/app/#key=${encodeURIComponent(key)}`;

function plainLinks(ctx: AppContext, requestBase: string): Array<Omit<WebAppLink, "qr_svg">> {
  const base = linkBase(ctx, requestBase);
  return ctx.settings.auth.api_keys.filter((k) => k.permissions.includes("webapp")).map((k) => ({ key_name: k.name, url: linkOf(base, k.key) }));
}

/** What a new (or rotated) web app key's tablet is set up with: answered once, beside the key. */
export interface WebAppSetup {
  url: string;
  qr_svg: string;
  how: string;
}

export async function webappSetup(ctx: AppContext, requestBase: string, key: string): Promise<WebAppSetup> {
  const url = linkOf(linkBase(ctx, requestBase), key);
  return {
    url,
    qr_svg: await qrSvg(url),
    how: "Open the link once on the senior's tablet, or scan the QR code with its camera; the tablet keeps its key. Then add the page to its home screen.",
  };
}

/** A web app key made here, whose link was answered once when it was made or rotated. */
export interface ManagedWebAppKey {
  id: number;
  key_name: string;
  created_at: string;
  rotated_at: string | null;
  last_used_at: string | null;
}

/** The web app keys made here and not revoked, oldest first. */
export async function managedWebAppKeys(ctx: AppContext): Promise<ManagedWebAppKey[]> {
  return (await listManagedKeys(ctx.db))
    .filter((k) => k.kind === "api" && k.role === "webapp" && k.revoked_at === null)
    .map((k) => ({ id: k.id, key_name: k.name, created_at: k.created_at, rotated_at: k.rotated_at, last_used_at: k.last_used_at }));
}

export function webappLinks(ctx: AppContext, requestBase: string): Promise<WebAppLink[]> {
  return Promise.all(plainLinks(ctx, requestBase).map(async (l) => ({ ...l, qr_svg: await qrSvg(l.url) })));
}

/** The QR code of one key's link; `keyName` may be left out when there is one web app key. */
export function webappLinkQr(ctx: AppContext, requestBase: string, keyName: unknown): Promise<string> {
  if (keyName !== undefined && typeof keyName !== "string") throw new ValidationError("key_name: give one key name");
  const links = plainLinks(ctx, requestBase);
  const names = links.map((l) => `'${l.key_name}'`).join(", ");
  if (links.length === 0) throw new NotFoundError(NO_KEY);
  if (!keyName) {
    if (links.length > 1) throw new ValidationError(`key_name: name one of the web app keys (${names})`);
    return qrSvg(links[0].url);
  }
  const link = links.find((l) => l.key_name === keyName);
  if (!link) throw new NotFoundError(`No web app key named '${keyName.slice(0, 100)}' (there are ${names})`);
  return qrSvg(link.url);
}
