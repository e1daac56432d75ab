/**
 * The senior's tablet is set up once by opening a link (docs/webapp.md): `…/app/#key=<key>`
 * per `webapp` key, from `app.public_url` or the address the request came to. The web app
 * keeps the key from the fragment and removes it from the address bar. Each link comes with
 * a QR code of it (SVG), so the tablet's camera opens it and nobody types a key.
 */
import type { AppContext } from "../context";
import { NotFoundError, ValidationError } from "../../platform/core/errors";
import { lazyModule } from "../../platform/core/lazy-module";

// Drawn only when an admin opens the set-up link.
const qrcode = lazyModule(() => require("qrcode") as typeof import("qrcode"));

export const NO_KEY = 'No web app key: set CAREFLOW_WEBAPP_KEY or add an api_keys entry with permissions ["webapp"].';

export interface WebAppLink {
  key_name: string;
  url: string;
  /** The link as a QR code: an SVG document, black on white with the standard quiet zone. */
  qr_svg: string;
}

/** Error correction M (15 %): a phone camera reads it off a screen or a smudged print-out. */
export const qrSvg = (text: string): Promise<string> => qrcode().toString(text, { type: "svg", errorCorrectionLevel: "M", margin: 4 });

function plainLinks(ctx: AppContext, requestBase: string): Array<Omit<WebAppLink, "qr_svg">> {
  const base = (ctx.settings.app.public_url ?? requestBase).replace(/\/+$/, "");
  return ctx.settings.auth.api_keys
    .filter((k) => k.permissions.includes("webapp"))
    .map((k) => ({ key_name: k.name, url: `${base}/app/#key=${encodeURIComponent(k.key)}` }));
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
