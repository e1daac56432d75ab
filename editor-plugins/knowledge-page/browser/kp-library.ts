/**
 * The Knowledge page's Cards, Quizzes and Ask tabs: each card as the senior will see it and
 * each quiz's questions, with their lifecycle (approve, archive, restore: an approved one can
 * be picked in an `info_card` or `quiz_start` node), and a test question asked as the senior
 * would, showing the answer and the passages it came from.
 */

interface KpCard {
  id: number;
  title: string;
  body_text?: string;
  layout_id?: string;
  status: string;
  tags?: string[];
  slots?: unknown;
}

interface KpQuestion {
  id: number;
  ord?: number;
  question_text: string;
  choices?: KpChoiceDraft[];
}

interface KpQuiz {
  id: number;
  title: string;
  status: string;
  tags?: string[];
  intro_voice_template?: string;
  questions?: KpQuestion[];
}

interface KpPassage {
  chunk_id?: number;
  document_id?: number;
  document_title?: string;
  text: string;
  score?: number;
}

interface KpAnswer {
  answer: string;
  found?: boolean;
  answered_via?: string;
  passages?: KpPassage[];
}

const KP_RESOURCE_ACTIONS: Record<string, ReadonlyArray<[string, string]>> = {
  draft: [
    ["approve", "Approve"],
    ["archive", "Archive"],
  ],
  caregiver_review: [
    ["approve", "Approve"],
    ["archive", "Archive"],
  ],
  approved: [["archive", "Archive"]],
  archived: [["restore", "Restore"]],
};

/** The first image URL in a slot manifest, the web app's variant before the others. */
function kpSlotUrls(slots: unknown): string[] {
  const urls: string[] = [];
  const visit = (v: unknown, depth: number): string | null => {
    if (!v || typeof v !== "object" || depth > 4) return null;
    const o = v as Record<string, unknown>;
    if (o.pwa) {
      const found = visit(o.pwa, depth + 1);
      if (found) return found;
    }
    if (typeof o.url === "string") return o.url;
    for (const x of Object.values(o)) {
      const found = visit(x, depth + 1);
      if (found) return found;
    }
    return null;
  };
  for (const slot of Array.isArray(slots) ? slots : []) {
    const url = visit(slot, 0);
    if (url) urls.push(url);
  }
  return urls;
}

function kpLifecycle(kind: "info-cards" | "quizzes", item: { id: number; title: string; status: string }, reload: (id: number) => Promise<void>): HTMLElement {
  const actions = kpEl("div", { class: "actions" });
  for (const [action, label] of KP_RESOURCE_ACTIONS[item.status] ?? []) {
    const b = kpEl("button", { type: "button", class: action === "approve" ? "primary" : "", "data-action": action }, label);
    b.addEventListener(
      "click",
      () =>
        void kpTry(`Could not ${label.toLowerCase()} "${item.title}"`, async () => {
          await kpApi("POST", `/${kind}/${item.id}/${action}`);
          kpNotice(`"${item.title}" is ${action === "restore" ? "restored" : `${action}d`}.`, "ok");
          await reload(item.id);
        }),
    );
    actions.append(b);
  }
  return actions;
}

function kpFillList<T extends { id: number; title: string; status: string }>(
  listId: string,
  items: T[],
  current: number | undefined,
  open: (id: number) => void,
): void {
  const list = kp$(listId);
  list.replaceChildren();
  if (!items.length) list.append(kpEl("li", { class: "empty" }, "Nothing yet: draft one from a document."));
  for (const it of items) {
    const li = kpEl("li", { "data-id": String(it.id), "aria-current": String(it.id === current) }, kpEl("span", {}, it.title), kpBadge(it.status));
    li.addEventListener("click", () => open(it.id));
    list.append(li);
  }
}

async function kpLoadCards(selectId?: number): Promise<void> {
  const cards = kpItems<KpCard>(await kpApi("GET", "/info-cards?limit=200"));
  kpFillList("card-list", cards, selectId, (id) => void kpTry("Could not open the card", () => kpLoadCards(id)));
  if (selectId === undefined) return;
  const card = await kpApi<KpCard>("GET", `/info-cards/${selectId}`);
  const preview = kpEl(
    "div",
    { class: "preview" },
    ...kpSlotUrls(card.slots).map((src) => kpEl("img", { src, alt: "" })),
    kpEl("h4", {}, card.title),
    kpEl("p", {}, card.body_text ?? ""),
  );
  kp$("card-detail").replaceChildren(
    kpEl("div", { class: "title-row" }, kpEl("h2", {}, card.title), kpBadge(card.status)),
    kpEl("p", { class: "muted" }, [`Layout: ${card.layout_id ?? "?"}`, kpTags(card.tags)].filter(Boolean).join(" · ")),
    kpLifecycle("info-cards", card, kpLoadCards),
    kpEl("h3", {}, "As the senior sees it"),
    preview,
  );
  kp$("card-detail").hidden = false;
  kp$("card-empty").hidden = true;
}

async function kpLoadQuizzes(selectId?: number): Promise<void> {
  const quizzes = kpItems<KpQuiz>(await kpApi("GET", "/quizzes?limit=200"));
  kpFillList("quiz-list", quizzes, selectId, (id) => void kpTry("Could not open the quiz", () => kpLoadQuizzes(id)));
  if (selectId === undefined) return;
  const quiz = await kpApi<KpQuiz>("GET", `/quizzes/${selectId}`);
  const questions = kpEl(
    "ol",
    { class: "chunks" },
    ...(quiz.questions ?? []).map((q) =>
      kpEl("li", {}, q.question_text, kpEl("span", { class: "from" }, (q.choices ?? []).map((c) => (c.is_correct ? `✔ ${c.text}` : c.text)).join("   ·   "))),
    ),
  );
  kp$("quiz-detail").replaceChildren(
    kpEl("div", { class: "title-row" }, kpEl("h2", {}, quiz.title), kpBadge(quiz.status)),
    kpEl("p", { class: "muted" }, kpTags(quiz.tags)),
    kpLifecycle("quizzes", quiz, kpLoadQuizzes),
    kpEl("h3", {}, `Questions (${(quiz.questions ?? []).length})`),
    questions,
  );
  kp$("quiz-detail").hidden = false;
  kp$("quiz-empty").hidden = true;
}

async function kpAsk(query: string): Promise<void> {
  const a = await kpApi<KpAnswer>("POST", "/knowledge/query", { query });
  kp$("ask-answer").textContent = a.answer;
  kp$("ask-via").textContent =
    a.found === false
      ? "Nothing in the approved documents answers this."
      : a.answered_via === "model"
        ? "Written by the answer model from the passages below."
        : "The best passage, as found (no answer model is configured).";
  kp$("ask-passages").replaceChildren(
    ...(a.passages ?? []).map((p) =>
      kpEl(
        "li",
        {},
        kpEl(
          "span",
          { class: "from" },
          `${p.document_title ?? `Document ${p.document_id ?? "?"}`}${p.score !== undefined ? ` · score ${p.score.toFixed(3)}` : ""}`,
        ),
        p.text,
      ),
    ),
  );
  kp$("ask-result").hidden = false;
}

function kpLibraryInit(): void {
  kpTabLoaders.cards = () => kpLoadCards();
  kpTabLoaders.quizzes = () => kpLoadQuizzes();
  kp$("ask-form").addEventListener("submit", (e) => {
    e.preventDefault();
    void kpTry("Could not ask", () => kpAsk(kp$<HTMLInputElement>("ask-query").value.trim()));
  });
}
