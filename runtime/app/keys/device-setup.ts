/**
 * What a device is set up with, answered beside its new key (issue 43 §1, the Household page):
 * the address it calls at the household's address (as the tablet's set-up link,
 * `ops/webapp-link.ts`, so never `localhost` when a device cannot reach that), the JSON body it
 * sends with its key in it (`device_key`, for devices that cannot set headers), and a QR code of
 * the address with the key (`?api_key=`), which a device's set-up screen can scan or a person
 * can copy. Given only where the key itself is: at creation and rotation, once.
 */
import type { AppContext } from "../context";
import { linkBase, qrSvg } from "../ops/webapp-link";

export interface DeviceSetup {
  method: "GET" | "POST";
  /** The address without the key. */
  url: string;
  /** The address with the key as `?api_key=`: what the QR code holds. */
  url_with_key: string;
  /** The JSON body a posting device sends (its key as `device_key`); null for a display, which only polls. */
  body: Record<string, unknown> | null;
  /** One sentence in plain words: how the device uses the above. */
  how: string;
  /** The QR code of `url_with_key`: an SVG document. */
  qr_svg: string;
}

type Plain = Omit<DeviceSetup, "url" | "url_with_key" | "qr_svg"> & { path: string };

/** Per device type: the spec's route and the body docs/devices.md and docs/eink.md describe. */
function plainSetup(deviceType: string, key: string): Plain {
  if (deviceType === "camera_device")
    return {
      method: "POST",
      path: "/api/v1/device/camera",
      body: { device_key: key, code: 0, data: { image: "<base64 JPEG>", labels: ["person"] } },
      how: "The camera posts each frame as this JSON (only data.image is required) to the address.",
    };
  if (deviceType === "terminal")
    return {
      method: "POST",
      path: "/api/v1/device/terminal",
      body: { device_key: key, button: "single" },
      how: 'The terminal posts each press as this JSON (button "single", "double" or "long") to the address, and polls its picture from /api/v1/image/active with the same key.',
    };
  return {
    method: "GET",
    path: "/api/v1/image/active",
    body: null,
    how: 'The display polls the address (or sends the key as "Authorization: Bearer <key>"): 200 is a new picture, 204 means keep showing the one it has.',
  };
}

export async function deviceSetup(ctx: AppContext, requestBase: string, deviceType: string, key: string): Promise<DeviceSetup> {
  const { path, ...rest } = plainSetup(deviceType, key);
  const url = `${linkBase(ctx, requestBase)}${path}`;
  const urlWithKey = `${url}?api_key=${encodeURIComponent(key)}`;
  return { ...rest, url, url_with_key: urlWithKey, qr_svg: await qrSvg(urlWithKey) };
}
