/**
 * What the delivery side (care/services/knowledge/delivery: the `info_card` and `quiz_start` steps, the
 * web app, e-ink, the quiz MCP tools) reads of a card or a quiz: an approved resource with its
 * rendered images, never the authoring tables themselves. cards/ and quizzes/ own those tables
 * and answer with these shapes.
 */

export type Surface = "pwa" | "eink";

/** One rendered image of a slot for one surface (a media store object). */
export interface RenderedVariant {
  surface: Surface;
  object_name: string;
  width: number;
  height: number;
  format: "webp" | "png";
  color_mode: "rgb" | "bw_dither";
  fit_mode: "cover" | "contain";
}

export interface DeliverableSlot {
  slot_index: number;
  alt_text: string;
  variants: RenderedVariant[];
}

export interface DeliverableCard {
  id: number;
  layout_id: string;
  title: string;
  body_text: string;
  voice_instruction: string | null;
  status: string;
  tags: string[];
  /** Filled slots only, by slot_index. */
  slots: DeliverableSlot[];
}

export interface QuizChoice {
  id: string;
  text: string;
  is_correct: boolean;
}

export interface DeliverableQuestion {
  id: number;
  ord: number;
  question_type: "multiple_choice" | "open_ended";
  question_text: string;
  choices: QuizChoice[];
  expected_answer: string;
  explanation: string;
  image: DeliverableSlot | null;
}

export interface DeliverableQuiz {
  id: number;
  title: string;
  question_layout_id: string;
  intro_voice_template: string;
  voice_instruction: string | null;
  status: string;
  tags: string[];
  /** In `ord` order. */
  questions: DeliverableQuestion[];
}
