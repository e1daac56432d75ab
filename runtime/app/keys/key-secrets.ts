/**
 * New keys' secrets. An API key is 32 random bytes in base64url (43 URL-safe characters, 256
 * bits): pasted once into a client, never typed. A device key is the spec's form, 8 uppercase
 * letters or digits (about 41 bits), since it is typed into a camera's or terminal's set-up
 * screen; guessing one is what the per-address throttle is for.
 */
import { randomBytes, randomInt } from "node:crypto";

const DEVICE_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

export const newApiKey = (): string => randomBytes(32).toString("base64url");

export const newDeviceKey = (): string => Array.from({ length: 8 }, () => DEVICE_ALPHABET[randomInt(DEVICE_ALPHABET.length)]).join("");
