/**
 * The Knowledge page's drafts: a card or a quiz drafted by the authoring model from the
 * document on screen (`/info-cards/suggest`, `/quizzes/suggest`), shown in a form the
 * caregiver corrects, then saved as a draft resource (the card with the photos picked from
 * the document in its slots, the quiz with its questions), ready to approve on its own tab.
 * Without a model the form opens empty and says what to configure.
 */

interface KpLayout {
  id: string;
  display_name?: string;
  applies_to?: string;
  min_images?: number;
  max_images?: number;
}

/** The card layouts offered in the draft form, as the server listed them. */
let kpCardLayouts: KpLayout[] = [];

/** The layout that holds `n` pictures: the chosen one if it can, else the first that can. */
function kpLayoutFor(n: number, chosen: string): string {
  const fits = (l: KpLayout) => (l.max_images ?? 0) >= n && (l.min_images ?? 0) <= n;
  const current = kpCardLayouts.find((l) => l.id === chosen);
  if (current && fits(current)) return chosen;
  return kpCardLayouts.find(fits)?.id ?? chosen;
}

interface KpChoiceDraft {
  id?: string;
  text: string;
  is_correct?: boolean;
}

interface KpQuestionDraft {
  question_type?: string;
  question_text: string;
  choices?: KpChoiceDraft[];
  explanation?: string;
}

interface KpCardDraft {
  title?: string;
  body_text?: string;
  layout_id?: string;
  voice_instruction?: string | null;
}

interface KpQuizDraft {
  title?: string;
  intro_voice_template?: string;
  questions?: KpQuestionDraft[];
}

/** The suggestion's body, whether the route answers it bare or as `{draft}`. */
function kpDraftOf<T>(answer: unknown): T {
  const a = answer as { draft?: unknown };
  return (a && typeof a === "object" && a.draft && typeof a.draft === "object" ? a.draft : answer) as T;
}

/** Asks for a suggestion; a missing model is said in the notice and the form opens empty. */
async function kpSuggest<T>(path: string, body: unknown): Promise<T | null> {
  kpNotice("Asking the model for a draft…");
  try {
    const draft = kpDraftOf<T>(await kpApi("POST", path, body));
    kpNotice("Here is a draft. Change anything before you save it.", "ok");
    return draft;
  } catch (err) {
    kpNotice(`${err instanceof Error ? err.message : String(err)} You can still write it yourself below.`, "error");
    return null;
  }
}

function kpField(form: HTMLFormElement, name: string): HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement {
  return form.elements.namedItem(name) as HTMLInputElement;
}

async function kpOpenCardDraft(doc: KpDocument): Promise<void> {
  const form = kp$<HTMLFormElement>("card-draft");
  form.reset();
  const layouts = kpItems<KpLayout>(await kpApi("GET", "/knowledge/layouts?applies_to=info_card"));
  kpCardLayouts = layouts;
  const select = kpField(form, "layout_id") as HTMLSelectElement;
  select.replaceChildren(...layouts.map((l) => kpEl("option", { value: l.id }, l.display_name ?? l.id)));
  // A document with photos starts from a layout with one picture; picking more changes it.
  select.value = kpLayoutFor((doc.images ?? []).length ? 1 : 0, select.value);
  const photos = form.querySelector(".thumbs") as HTMLElement;
  photos.replaceChildren(
    ...(doc.images ?? []).map((img) => {
      const fig = kpEl(
        "figure",
        { "data-image-id": String(img.id), role: "checkbox", "aria-checked": "false", tabindex: "0" },
        kpEl("img", { src: img.url ?? "", alt: img.alt_text ?? "" }),
        kpEl("figcaption", {}, img.alt_text || "No description"),
      );
      fig.addEventListener("click", () => {
        fig.setAttribute("aria-checked", String(fig.getAttribute("aria-checked") !== "true"));
        select.value = kpLayoutFor(photos.querySelectorAll('figure[aria-checked="true"]').length, select.value);
      });
      return fig;
    }),
  );
  kp$("card-photos").hidden = !(doc.images ?? []).length;
  kpShowDocPane("card");
  const draft = await kpSuggest<KpCardDraft>("/info-cards/suggest", { document_id: doc.id, layout_id: select.value });
  if (!draft) return;
  kpField(form, "title").value = draft.title ?? "";
  kpField(form, "body_text").value = draft.body_text ?? "";
  kpField(form, "voice_instruction").value = draft.voice_instruction ?? "";
  if (draft.layout_id && layouts.some((l) => l.id === draft.layout_id)) select.value = draft.layout_id;
}

async function kpSaveCard(doc: KpDocument, form: HTMLFormElement): Promise<void> {
  const voice = kpField(form, "voice_instruction").value.trim();
  const card = await kpApi<{ id: number; title: string }>("POST", "/info-cards", {
    layout_id: kpField(form, "layout_id").value,
    title: kpField(form, "title").value,
    body_text: kpField(form, "body_text").value,
    voice_instruction: voice || null,
    document_id: doc.id,
    tags: doc.tags ?? [],
  });
  const picked = Array.from(form.querySelectorAll<HTMLElement>('.thumbs figure[aria-checked="true"]'));
  for (const [i, fig] of picked.entries()) {
    await kpApi("PUT", `/info-cards/${card.id}/slots/${i}`, { document_image_id: Number(fig.dataset.imageId) });
  }
  kpNotice(`Saved the card "${card.title}" as a draft. Approve it on the Cards tab to use it in a rule.`, "ok");
  kpShowDocPane("detail");
}

function kpQuestionBox(q: KpQuestionDraft): HTMLElement {
  const box = kpEl("div", { class: "question" });
  const remove = kpEl("button", { type: "button", class: "remove" }, "Remove");
  remove.addEventListener("click", () => box.remove());
  const text = kpEl("input", { type: "text", class: "q-text", value: q.question_text ?? "", placeholder: "The question", "aria-label": "Question" });
  const choices = kpEl("div", { class: "choices" });
  const name = `correct-${Math.random().toString(36).slice(2)}`;
  const given = q.choices?.length ? q.choices : [{ text: "" }, { text: "" }, { text: "" }];
  for (const c of given) {
    const radio = kpEl("input", { type: "radio", name, "aria-label": "The right answer" });
    radio.checked = Boolean(c.is_correct);
    choices.append(radio, kpEl("input", { type: "text", class: "c-text", value: c.text ?? "", placeholder: "An answer", "aria-label": "Answer" }));
  }
  box.append(remove, kpEl("label", {}, "Question", text), kpEl("div", { class: "muted" }, "Answers (mark the right one):"), choices);
  return box;
}

function kpQuestionsOf(form: HTMLFormElement): KpQuestionDraft[] {
  return Array.from(form.querySelectorAll<HTMLElement>(".question")).map((box) => {
    const radios = Array.from(box.querySelectorAll<HTMLInputElement>("input[type=radio]"));
    const texts = Array.from(box.querySelectorAll<HTMLInputElement>("input.c-text"));
    const choices = texts.map((t, i) => ({ id: String.fromCharCode(97 + i), text: t.value.trim(), is_correct: radios[i].checked })).filter((c) => c.text);
    return { question_type: "multiple_choice", question_text: (box.querySelector("input.q-text") as HTMLInputElement).value.trim(), choices };
  });
}

async function kpOpenQuizDraft(doc: KpDocument): Promise<void> {
  const form = kp$<HTMLFormElement>("quiz-draft");
  form.reset();
  kp$("quiz-questions").replaceChildren();
  kpShowDocPane("quiz");
  const draft = await kpSuggest<KpQuizDraft>("/quizzes/suggest", { document_id: doc.id });
  kpField(form, "title").value = draft?.title ?? doc.title;
  kpField(form, "intro_voice_template").value = draft?.intro_voice_template ?? "";
  const questions = draft?.questions?.length ? draft.questions : [{ question_text: "" }];
  kp$("quiz-questions").replaceChildren(...questions.map(kpQuestionBox));
}

async function kpSaveQuiz(doc: KpDocument, form: HTMLFormElement): Promise<void> {
  const questions = kpQuestionsOf(form);
  const quiz = await kpApi<{ id: number; title: string }>("POST", "/quizzes", {
    title: kpField(form, "title").value,
    intro_voice_template: kpField(form, "intro_voice_template").value,
    document_id: doc.id,
    tags: doc.tags ?? [],
  });
  for (const q of questions) await kpApi("POST", `/quizzes/${quiz.id}/questions`, q);
  kpNotice(
    `Saved the quiz "${quiz.title}" with ${questions.length} question${questions.length === 1 ? "" : "s"} as a draft. Approve it on the Quizzes tab.`,
    "ok",
  );
  kpShowDocPane("detail");
}

function kpDraftsInit(): void {
  const withDoc = (what: string, fn: (doc: KpDocument) => Promise<void>) => () => {
    const doc = kpCurrentDocument;
    if (doc) void kpTry(what, () => fn(doc));
  };
  kp$("draft-card").addEventListener("click", withDoc("Could not draft a card", kpOpenCardDraft));
  kp$("draft-quiz").addEventListener("click", withDoc("Could not draft a quiz", kpOpenQuizDraft));
  kp$("quiz-add-question").addEventListener("click", () => kp$("quiz-questions").append(kpQuestionBox({ question_text: "" })));
  for (const id of ["card-draft", "quiz-draft"]) {
    const form = kp$<HTMLFormElement>(id);
    form.querySelector(".cancel")?.addEventListener("click", () => kpShowDocPane("detail"));
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      withDoc("Could not save", (doc) => (id === "card-draft" ? kpSaveCard(doc, form) : kpSaveQuiz(doc, form)))();
    });
  }
}
