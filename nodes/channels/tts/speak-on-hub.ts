/**
 * What both speech channels do (`hub_speaker_tts`, `tts`): pick the speaker, have the text
 * synthesised by the household's TTS service, and play it there. The speaker is the one the
 * step or channel names, else the one in the room where the person is now (their location
 * state), else the trigger's room's (`hub.speakers`), else `hub.media_player`.
 */
import type { HandlerContext } from "../../_kit/handler-types";
import type { ChannelMessage } from "../../_kit/handler-types";
import type { DeliveryReceipt } from "../../../vocabulary/notifications";
import type { SpeechRequest } from "../../../vocabulary/hub";

export async function speakOnHub(
  ctx: HandlerContext,
  message: ChannelMessage,
  channel: string,
  speech: Omit<SpeechRequest, "text" | "room_name">,
): Promise<DeliveryReceipt> {
  const { presence, hub } = ctx.services;
  let room = message.room_name;
  const personId = presence.personIdFrom(undefined, message.pipeline_data);
  if (!speech.media_player && personId) {
    const where = await presence.location(personId).catch(() => null);
    if (where?.room_name) room = where.room_name;
  }
  const answer = await hub.speak({ ...speech, text: message.message, room_name: room }, ctx.signal);
  if (!answer.ok) return { channel, delivered: false, detail: answer.reason };
  return { channel, delivered: true, detail: `played on ${answer.value.media_player}` };
}
