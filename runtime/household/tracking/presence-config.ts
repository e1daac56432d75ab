/**
 * `POST /cts/presence-config/reload`: the presence chain (`presence` of the settings file)
 * read again and swapped in without a restart. The whole file is checked as a start would
 * check it, so a reload never accepts a file the next start would refuse; only `presence`
 * is taken. A file that cannot be read, does not parse or fails the schema leaves the
 * running chain and answers 422 naming the field.
 */
import type { PlatformContext } from "../../platform/context";
import { buildSettings, readSettingsFile, SettingsError } from "../../platform/config/load-settings";
import { ConflictError, ValidationError } from "../../platform/core/errors";
import type { Settings } from "../../../settings";

export interface PresenceConfigView {
  settings_file: string;
  min_confidence: number;
  providers: Settings["presence"]["providers"];
}

export function reloadPresenceConfig(ctx: PlatformContext): PresenceConfigView {
  const file = ctx.settingsFile;
  if (!file) {
    throw new ConflictError(
      "careflow was started without a settings file (CAREFLOW_SETTINGS): the running presence chain is the default and there is no file to reload it from",
    );
  }
  let presence: Settings["presence"];
  try {
    presence = buildSettings(readSettingsFile(file)).presence;
  } catch (err) {
    if (err instanceof SettingsError) throw new ValidationError(`${err.message}; the running presence chain is unchanged`);
    throw err;
  }
  ctx.settings.presence = presence;
  ctx.log.info({ providers: presence.providers.map((p) => `${p.name}:${p.priority}${p.enabled ? "" : " (off)"}`) }, "presence chain reloaded");
  return { settings_file: file, ...presence };
}
