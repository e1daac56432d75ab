/**
 * Cards and quizzes on the senior's web app (the `info_card` and `quiz_start` steps): a card
 * with its title, words and pictures and a button to put it away; a quiz one question at a
 * time with big answer buttons, a gentle word on each answer, then "Well done" with the
 * score. They take their turn in the app's one-thing-at-a-time queue (app.ts) and talk to the
 * server over its socket (frames in runtime/care/services/knowledge/delivery/delivery.ws.ts).
 */
(() => {
  const app = (window as unknown as { careflowApp?: CareflowApp }).careflowApp;
  if (!app) return;
  type Frame = CareflowAppFrame;

  interface Choice {
    id: string;
    text: string;
  }
  interface Question {
    ord: number;
    number: number;
    of: number;
    question_type: string;
    question_text: string;
    choices: Choice[];
    image_url: string | null;
    image_alt: string;
  }
  interface SessionView {
    session_id: number;
    title: string;
    status: string;
    question_count: number;
    correct_count: number;
    answered_count: number;
    score: number;
    question: Question | null;
  }
  interface Feedback {
    question_ord: number;
    is_correct: boolean | null;
    chosen_choice_id: string | null;
    correct_choice_text: string | null;
    explanation: string;
  }
  interface QuizState {
    view: SessionView;
    /** The word on the answer just given, shown for FEEDBACK_MS before the next question. */
    feedback: Feedback | null;
    /** What follows the feedback (the session as the server sent it with the answer). */
    after: SessionView | null;
    /** Tapped, waiting for the server's result. */
    pending: string | null;
    done: boolean;
    /** The session closed while its last answer's result was still on the way. */
    closed: SessionView | null;
  }

  const FEEDBACK_MS = 3500;
  const WELL_DONE_MS = 30000;
  /** How long "Well done" waits for the last answer's result when the session closed first. */
  const LAST_WORD_WAIT_MS = 2000;
  const $ = (id: string): HTMLElement => {
    const el = document.getElementById(id);
    if (!el) throw new Error(`#${id} is missing from the page`);
    return el;
  };
  const knowledge = { cards: [] as number[], dismissed: [] as number[], answers: [] as string[], finished: [] as string[] };
  app.report.knowledge = knowledge;

  // ---- cards --------------------------------------------------------------------------------

  interface CardFrame {
    delivery_id: number;
    card: { title: string; body_text: string; layout_id: string; images: Array<{ url: string; alt_text: string }> };
  }
  const viewed = new Set<number>();

  function showCard(c: CardFrame): void {
    $("card-title").textContent = c.card.title;
    $("card-body").textContent = c.card.body_text;
    const box = $("card-images");
    box.replaceChildren(
      ...c.card.images.map((im) => {
        const img = document.createElement("img");
        img.src = im.url;
        img.alt = im.alt_text;
        return img;
      }),
    );
    box.hidden = c.card.images.length === 0;
    $("card").dataset.layout = c.card.layout_id;
    $("card").dataset.images = String(c.card.images.length);
    $("card-dismiss").dataset.delivery = String(c.delivery_id);
    if (!viewed.has(c.delivery_id)) {
      viewed.add(c.delivery_id);
      app!.send({ type: "info_card_viewed", delivery_id: c.delivery_id });
    }
  }

  app.onFrame("info_card", (f) => {
    const c = f as unknown as CardFrame;
    if (!c.card || knowledge.dismissed.includes(c.delivery_id)) return;
    if (!knowledge.cards.includes(c.delivery_id)) knowledge.cards.push(c.delivery_id);
    app.enqueue({ id: `card-${c.delivery_id}`, screen: "card", show: () => showCard(c) });
  });
  app.onFrame("info_card_closed", (f) => app.finish(`card-${Number(f.delivery_id)}`));
  $("card-dismiss").addEventListener("click", () => {
    const id = Number($("card-dismiss").dataset.delivery);
    if (!id) return;
    knowledge.dismissed.push(id);
    app.send({ type: "info_card_dismiss", delivery_id: id });
    app.finish(`card-${id}`);
  });

  // ---- quizzes ------------------------------------------------------------------------------

  const quizzes = new Map<number, QuizState>();
  let shownSession: number | null = null;
  const itemId = (sessionId: number) => `quiz-${sessionId}`;

  function drawQuiz(s: QuizState): void {
    shownSession = s.view.session_id;
    const q = s.view.question;
    $("quiz-title").textContent = s.view.title;
    const wellDone = s.done && !s.feedback;
    $("quiz-progress").textContent = q && !wellDone ? app!.t("quiz.progress", { number: q.number, of: q.of }) : "";
    $("quiz-question-box").hidden = wellDone;
    $("quiz-done").hidden = !wellDone;
    $("quiz-stop").hidden = wellDone;
    if (wellDone) {
      $("quiz-score").textContent = app!.t("quiz.score", { correct: s.view.correct_count, total: s.view.question_count });
      return;
    }
    if (!q) return;
    $("quiz-question").textContent = q.question_text;
    const img = $("quiz-image") as HTMLImageElement;
    img.hidden = !q.image_url;
    if (q.image_url) {
      img.src = q.image_url;
      img.alt = q.image_alt;
    } else img.removeAttribute("src");
    const buttons = $("quiz-choices");
    buttons.dataset.count = String(q.choices.length);
    buttons.replaceChildren(
      ...q.choices.map((c) => {
        const b = document.createElement("button");
        b.type = "button";
        b.className = "big choice";
        b.textContent = c.text;
        b.dataset.choice = c.id;
        const fb = s.feedback?.question_ord === q.ord ? s.feedback : null;
        if (fb || s.pending) b.disabled = true;
        if (s.pending === c.id || fb?.chosen_choice_id === c.id) b.classList.add("chosen");
        if (fb && fb.is_correct === false && fb.correct_choice_text === c.text) b.classList.add("right");
        b.addEventListener("click", () => tap(s, q, c));
        return b;
      }),
    );
    $("quiz-voice-only").hidden = q.question_type !== "open_ended";
    const fb = s.feedback;
    const word = $("quiz-feedback");
    word.hidden = !fb;
    if (fb) {
      word.dataset.right = String(fb.is_correct === true);
      // The catalog's words, then the family's own explanation.
      const said =
        fb.is_correct === true
          ? app!.t("quiz.right")
          : fb.is_correct === false
            ? app!.t("quiz.good_try", { answer: fb.correct_choice_text ?? app!.t("quiz.unnamed_answer") })
            : app!.t("quiz.thanks");
      word.textContent = fb.is_correct !== null && fb.explanation ? `${said} ${fb.explanation}` : said;
    }
  }

  function tap(s: QuizState, q: Question, c: Choice): void {
    if (s.pending || s.feedback || s.done) return;
    s.pending = c.id;
    knowledge.answers.push(`${s.view.session_id}/${q.ord}/${c.id}`);
    app!.send({ type: "quiz_answer", session_id: s.view.session_id, question_ord: q.ord, choice_id: c.id });
    drawQuiz(s);
  }

  function stateFor(view: SessionView): QuizState {
    let s = quizzes.get(view.session_id);
    if (!s) {
      s = { view, feedback: null, after: null, pending: null, done: false, closed: null };
      quizzes.set(view.session_id, s);
      app!.enqueue({ id: itemId(view.session_id), screen: "quiz", show: () => drawQuiz(quizzes.get(view.session_id)!) });
    }
    return s;
  }

  function end(s: QuizState): void {
    knowledge.finished.push(`${s.view.session_id}:${s.view.status}`);
    quizzes.delete(s.view.session_id);
    app!.finish(itemId(s.view.session_id));
  }

  /** After the word on an answer: the next question, "Well done", or off the screen. */
  function moveOn(s: QuizState): void {
    s.feedback = null;
    if (s.after) s.view = s.after;
    s.after = null;
    if (s.view.question && s.view.status !== "completed") return app!.redraw(itemId(s.view.session_id));
    showWellDone(s);
  }

  function showWellDone(s: QuizState): void {
    if (s.view.status !== "completed") return end(s);
    s.done = true;
    app!.redraw(itemId(s.view.session_id));
    window.setTimeout(() => (quizzes.get(s.view.session_id) === s ? end(s) : undefined), WELL_DONE_MS);
  }

  app.onFrame("quiz_question", (f) => {
    const view = f.session as SessionView;
    if (!view?.question) return;
    const s = stateFor(view);
    if (s.feedback || s.done) return;
    if (s.view.question?.ord !== view.question.ord) s.pending = null;
    s.view = view;
    app.redraw(itemId(view.session_id));
  });

  function onAnswered(f: Frame): void {
    const view = f.session as SessionView;
    const s = view && quizzes.get(view.session_id);
    if (!s || s.feedback?.question_ord === f.question_ord || s.view.question?.ord !== f.question_ord) return;
    s.pending = null;
    s.feedback = {
      question_ord: Number(f.question_ord),
      is_correct: f.is_correct as boolean | null,
      chosen_choice_id: (f.chosen_choice_id as string | null) ?? null,
      correct_choice_text: (f.correct_choice_text as string | null) ?? null,
      explanation: String(f.explanation ?? ""),
    };
    // A session closed before this result (the last answer): "Well done" follows the word.
    s.after = s.closed ?? view;
    s.closed = null;
    app!.redraw(itemId(view.session_id));
    window.setTimeout(() => (quizzes.get(view.session_id) === s ? moveOn(s) : undefined), FEEDBACK_MS);
  }
  app.onFrame("quiz_answer_result", onAnswered);
  app.onFrame("quiz_answered", onAnswered);
  app.onFrame("error", (f) => {
    // Our answer was refused (answered elsewhere first, the quiz ended): let the buttons work again.
    for (const s of quizzes.values()) if (s.pending) s.pending = null;
    if (shownSession !== null && app!.isShowing(itemId(shownSession))) app!.redraw(itemId(shownSession));
    console.warn("careflow:", f.detail);
  });

  app.onFrame("quiz_closed", (f) => {
    const view = f.session as SessionView;
    const s = view && quizzes.get(view.session_id);
    if (!s) return;
    if (s.feedback) {
      s.after = view; // the word on the last answer first, then well done
      return;
    }
    // The server ends the session before it sends the last answer's result: when the question on
    // screen was answered, wait for that word (and its explanation) before "Well done".
    const onScreen = s.view.question?.ord;
    if (view.status === "completed" && onScreen !== undefined && !s.done) {
      s.closed = view;
      window.setTimeout(() => {
        if (quizzes.get(view.session_id) === s && s.closed && !s.feedback) {
          s.view = s.closed;
          s.closed = null;
          showWellDone(s);
        }
      }, LAST_WORD_WAIT_MS);
      return;
    }
    s.view = view;
    showWellDone(s);
  });

  $("quiz-stop").addEventListener("click", () => {
    if (shownSession === null) return;
    const s = quizzes.get(shownSession);
    app!.send({ type: "quiz_abandon", session_id: shownSession });
    if (s) {
      s.view = { ...s.view, status: "abandoned" };
      end(s);
    }
  });
  $("quiz-ok").addEventListener("click", () => {
    const s = shownSession === null ? undefined : quizzes.get(shownSession);
    if (s) end(s);
  });
})();
