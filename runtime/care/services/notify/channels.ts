/**
 * The channel types of the generated registry, as the channel layer looks them up. Only
 * this file of `notify/` imports the registry: dispatch and the notify service are given
 * the channels, so no handler's module depends on them and registration does not depend on
 * which module Node loads first.
 */
import { registry } from "../../../../nodes/registry.generated";
import type { ChannelLookup, Channels } from "./dispatch";
import { channelOfType } from "../../core/language/channel-names";

export const registeredChannel: ChannelLookup = channelOfType;

export const registeredChannels: Channels = {
  find: registeredChannel,
  // Every channel's options, whatever this send's channels: an escalation re-send keeps them all.
  optionKeys: [...new Set(registry.channels.flatMap((e) => Object.keys(e.spec.step.options ?? {})))],
};
