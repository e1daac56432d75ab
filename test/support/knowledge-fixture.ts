/**
 * Cards and quizzes for the delivery tests, written straight into the authoring tables
 * (cards/ and quizzes/ own them in the app; tests are not bound by that). Pictures are real
 * media store objects: a PNG per variant, stored as the store stores any object.
 */
import type { Knex } from "knex";
import { sharpLib } from "../../runtime/care/services/eink/native-libs";
import type { MediaContext } from "../../runtime/household/media/media.service";
import { storeFrame } from "../../runtime/household/media/media.service";

const NOW = "2026-01-01T00:00:00.000Z";

/** A small drawing (a house under the sun on a coloured sky) as a PNG; black and white for e-ink. */
export async function picture(width: number, height: number, rgb: [number, number, number], bw = false): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 400 300">
    <rect width="400" height="300" fill="rgb(${rgb.join(",")})"/>
    <circle cx="320" cy="70" r="38" fill="#ffd54a"/>
    <rect y="220" width="400" height="80" fill="#3f8f3f"/>
    <rect x="110" y="140" width="150" height="110" fill="#f4efe6" stroke="#333" stroke-width="4"/>
    <polygon points="95,145 185,75 275,145" fill="#b5523b" stroke="#333" stroke-width="4"/>
    <rect x="165" y="190" width="40" height="60" fill="#6b4a2f"/>
    <rect x="125" y="165" width="30" height="30" fill="#9ad0f5" stroke="#333" stroke-width="3"/>
    <rect x="215" y="165" width="30" height="30" fill="#9ad0f5" stroke="#333" stroke-width="3"/>
  </svg>`;
  let img = sharpLib()(Buffer.from(svg));
  if (bw) img = img.greyscale().threshold(140);
  return img.png().toBuffer();
}

async function storeObject(ctx: MediaContext, bytes: Buffer): Promise<string> {
  return (await storeFrame(ctx, { sensor_id: "knowledge-test", bytes, content_type: "image/png" })).object_name;
}

/** The variants JSON of a slot: a colour `pwa` picture and a black-and-white `eink` one. */
export async function slotVariants(
  ctx: MediaContext,
  rgb: [number, number, number] = [90, 150, 210],
): Promise<{ original: string; variants: Record<string, unknown> }> {
  const pwa = await storeObject(ctx, await picture(800, 600, rgb));
  const eink = await storeObject(ctx, await picture(360, 440, rgb, true));
  return {
    original: pwa,
    variants: {
      pwa: { object_name: pwa, width: 800, height: 600, format: "png", color_mode: "rgb", fit_mode: "cover" },
      eink: { object_name: eink, width: 360, height: 440, format: "png", color_mode: "bw_dither", fit_mode: "contain" },
    },
  };
}

export interface CardInput {
  title?: string;
  body_text?: string;
  status?: string;
  layout_id?: string;
  voice_instruction?: string | null;
  tags?: string[];
  /** With a picture in slot 0. */
  picture?: boolean;
}

export async function insertCard(ctx: MediaContext & { db: Knex }, c: CardInput = {}): Promise<number> {
  const [row] = await ctx
    .db("info_cards")
    .insert({
      layout_id: c.layout_id ?? (c.picture ? "single_hero" : "text_only"),
      title: c.title ?? "Anna visits on Sunday",
      body_text: c.body_text ?? "Your granddaughter Anna comes for lunch on Sunday at noon.",
      voice_instruction: c.voice_instruction ?? null,
      tags: JSON.stringify(c.tags ?? ["family"]),
      status: c.status ?? "approved",
      created_by: "test",
      created_at: NOW,
      updated_at: NOW,
    })
    .returning("id");
  const id = Number(typeof row === "object" ? (row as { id: number }).id : row);
  if (c.picture) {
    const v = await slotVariants(ctx);
    await ctx.db("info_card_slots").insert({
      info_card_id: id,
      slot_index: 0,
      original_object_name: v.original,
      alt_text: "Anna smiling",
      variants: JSON.stringify(v.variants),
      rendered_at: NOW,
    });
  }
  return id;
}

export interface QuestionInput {
  text: string;
  choices: Array<[string, boolean]>;
  explanation?: string;
  picture?: boolean;
}

export const FAMILY_QUESTIONS: QuestionInput[] = [
  {
    text: "Who comes for lunch on Sunday?",
    choices: [
      ["Anna", true],
      ["Peter", false],
      ["The doctor", false],
    ],
    explanation: "Anna comes every Sunday.",
    picture: true,
  },
  {
    text: "What colour is the new heater's button?",
    choices: [
      ["Red", false],
      ["Green", true],
    ],
    explanation: "The green button turns it on.",
  },
  {
    text: "Which day is the market?",
    choices: [
      ["Tuesday", true],
      ["Friday", false],
      ["Sunday", false],
    ],
  },
];

export async function insertQuiz(
  ctx: MediaContext & { db: Knex },
  q: { title?: string; status?: string; tags?: string[]; questions?: QuestionInput[]; intro?: string } = {},
): Promise<number> {
  const [row] = await ctx
    .db("quizzes")
    .insert({
      title: q.title ?? "Family and home",
      intro_voice_template: q.intro ?? "",
      tags: JSON.stringify(q.tags ?? ["family"]),
      status: q.status ?? "approved",
      created_by: "test",
      created_at: NOW,
      updated_at: NOW,
    })
    .returning("id");
  const id = Number(typeof row === "object" ? (row as { id: number }).id : row);
  let ord = 1;
  for (const question of q.questions ?? FAMILY_QUESTIONS) {
    const image = question.picture ? await slotVariants(ctx, [230, 170, 80]) : null;
    await ctx.db("quiz_questions").insert({
      quiz_id: id,
      ord: ord++,
      question_type: "multiple_choice",
      question_text: question.text,
      choices: JSON.stringify(question.choices.map(([text, is_correct], i) => ({ id: `c${i + 1}`, text, is_correct }))),
      explanation: question.explanation ?? "",
      image: image ? JSON.stringify({ original_object_name: image.original, alt_text: "a picture", variants: image.variants }) : "{}",
    });
  }
  return id;
}

export async function insertDocument(db: Knex, tags: string[], status = "approved"): Promise<void> {
  await db("knowledge_documents").insert({
    title: "Notes",
    source_text: "text",
    tags: JSON.stringify(tags),
    status,
    created_by: "test",
    created_at: NOW,
    updated_at: NOW,
  });
}
