/**
 * The Knowledge page's Documents tab: the family's documents, a new one uploaded with its
 * photos, one document's photos and passages (the chunks retrieval searches), and its
 * lifecycle (approve, archive, restore, re-embed). Drafting a card or quiz from it is
 * kp-drafts.ts.
 */

interface KpImage {
  id: number;
  url?: string;
  alt_text?: string;
  ord?: number;
}

interface KpDocument {
  id: number;
  title: string;
  source_text?: string;
  tags?: string[];
  status: string;
  images?: KpImage[];
  chunk_count?: number;
}

interface KpChunk {
  id: number;
  chunk_index?: number;
  text: string;
}

/** The document on screen, for the drafts. */
let kpCurrentDocument: KpDocument | null = null;

/** Which lifecycle actions a document in each status offers. */
const KP_DOC_ACTIONS: Record<string, ReadonlyArray<[string, string]>> = {
  uploaded: [
    ["approve", "Approve"],
    ["archive", "Archive"],
  ],
  chunked: [
    ["approve", "Approve"],
    ["archive", "Archive"],
  ],
  approved: [
    ["reembed", "Re-index"],
    ["archive", "Archive"],
  ],
  archived: [["restore", "Restore"]],
};

/** Counts pane changes: a document still loading must not take the pane back from a draft opened meanwhile. */
let kpPaneChanges = 0;

function kpShowDocPane(which: "form" | "detail" | "empty" | "card" | "quiz"): void {
  kpPaneChanges++;
  kp$("doc-form").hidden = which !== "form";
  kp$("doc-detail").hidden = which !== "detail" && which !== "card" && which !== "quiz";
  kp$("card-draft").hidden = which !== "card";
  kp$("quiz-draft").hidden = which !== "quiz";
  kp$("doc-empty").hidden = which !== "empty";
}

async function kpLoadDocuments(selectId?: number): Promise<void> {
  // A pane opened while the list loads (the upload form, say) keeps the screen.
  const pane = kpPaneChanges;
  const q = kp$<HTMLInputElement>("doc-search").value.trim();
  const status = kp$<HTMLSelectElement>("doc-status").value;
  const params = new URLSearchParams();
  if (q) params.set("q", q);
  if (status) params.set("status", status);
  const docs = kpItems<KpDocument>(await kpApi("GET", `/knowledge/documents${params.toString() ? `?${params}` : ""}`));
  const list = kp$("doc-list");
  list.replaceChildren();
  if (!docs.length) list.append(kpEl("li", { class: "empty" }, q || status ? "No document matches." : "No documents yet."));
  for (const d of docs) {
    const li = kpEl(
      "li",
      { "data-id": String(d.id), "aria-current": String(d.id === (selectId ?? kpCurrentDocument?.id)) },
      kpEl("span", {}, d.title),
      kpBadge(d.status),
    );
    li.addEventListener("click", () => void kpTry("Could not open the document", () => kpOpenDocument(d.id)));
    list.append(li);
  }
  if (kpPaneChanges !== pane) return;
  if (selectId !== undefined) await kpOpenDocument(selectId);
  else if (!kpCurrentDocument) kpShowDocPane("empty");
}

async function kpOpenDocument(id: number): Promise<void> {
  const pane = kpPaneChanges;
  // Until this one has opened, a draft would be drafted from the document still shown.
  const drafts = ["draft-card", "draft-quiz"].map((b) => kp$<HTMLButtonElement>(b));
  const wereDisabled = drafts.map((b) => b.disabled);
  for (const b of drafts) b.disabled = true;
  const doc = await kpApi<KpDocument>("GET", `/knowledge/documents/${id}`).catch((err: unknown) => {
    drafts.forEach((b, i) => (b.disabled = wereDisabled[i]));
    throw err;
  });
  kpCurrentDocument = doc;
  for (const li of Array.from(kp$("doc-list").children)) li.setAttribute("aria-current", String(li.getAttribute("data-id") === String(id)));
  kp$("doc-title").textContent = doc.title;
  kp$("doc-badge").replaceWith(Object.assign(kpBadge(doc.status), { id: "doc-badge" }));
  kp$("doc-tags").textContent = kpTags(doc.tags);

  const actions = kp$("doc-actions");
  actions.replaceChildren();
  for (const [action, label] of KP_DOC_ACTIONS[doc.status] ?? []) {
    const b = kpEl("button", { type: "button", class: action === "approve" ? "primary" : "", "data-action": action }, label);
    b.addEventListener(
      "click",
      () =>
        void kpTry(`Could not ${label.toLowerCase()}`, async () => {
          await kpApi("POST", `/knowledge/documents/${doc.id}/${action}`);
          kpNotice(`${doc.title}: ${label.toLowerCase()}d.`.replace("ed.d.", "ed."), "ok");
          await kpLoadDocuments(doc.id);
        }),
    );
    actions.append(b);
  }

  const images = kp$("doc-images");
  images.replaceChildren();
  for (const img of doc.images ?? [])
    images.append(kpEl("figure", {}, kpEl("img", { src: img.url ?? "", alt: img.alt_text ?? "" }), kpEl("figcaption", {}, img.alt_text || "No description")));

  const chunks = kpItems<KpChunk>(await kpApi("GET", `/knowledge/documents/${doc.id}/chunks`).catch(() => []));
  kp$("doc-chunks-summary").textContent = `Passages retrieval searches (${doc.chunk_count ?? chunks.length})`;
  kp$("doc-chunks").replaceChildren(...chunks.map((c) => kpEl("li", {}, c.text)));
  const approved = doc.status === "approved";
  for (const id of ["draft-card", "draft-quiz"]) {
    const b = kp$<HTMLButtonElement>(id);
    b.disabled = doc.status === "archived";
    b.title = approved ? "" : "You can draft from it now; the senior is only asked about approved documents.";
  }
  // A draft (or the upload form) opened while this loaded keeps the pane.
  if (kpPaneChanges === pane) kpShowDocPane("detail");
}

async function kpUploadDocument(form: HTMLFormElement): Promise<void> {
  const data = new FormData();
  const field = (name: string) => (form.elements.namedItem(name) as HTMLInputElement | HTMLTextAreaElement).value;
  data.set("title", field("title"));
  data.set("source_text", field("source_text"));
  const tags = field("tags")
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
  data.set("tags", JSON.stringify(tags));
  const files = (form.elements.namedItem("images") as HTMLInputElement).files;
  for (const f of Array.from(files ?? [])) data.append("images", f, f.name);
  // One description a photo, in the photos' order (what the senior's screen and the search read).
  const descriptions = Array.from(kp$("doc-photo-descriptions").querySelectorAll<HTMLInputElement>("input")).map((i) => i.value.trim());
  if (descriptions.some(Boolean)) data.set("image_descriptions", JSON.stringify(descriptions));
  const textFile = (form.elements.namedItem("source_file") as HTMLInputElement).files?.[0];
  if (textFile) {
    if (field("source_text").trim()) throw new Error("Write the text or choose a text file, not both.");
    data.delete("source_text");
    data.append("source_file", textFile, textFile.name);
  }
  const doc = await kpApi<KpDocument>("POST", "/knowledge/documents", data);
  form.reset();
  kp$("doc-photo-descriptions").replaceChildren();
  kpNotice(`Uploaded "${doc.title}". Read its passages, then approve it so the senior can ask about it.`, "ok");
  await kpLoadDocuments(doc.id);
}

function kpDocumentsInit(): void {
  kpTabLoaders.documents = () => kpLoadDocuments(kpCurrentDocument?.id);
  let searchTimer = 0;
  kp$("doc-search").addEventListener("input", () => {
    clearTimeout(searchTimer);
    searchTimer = window.setTimeout(() => void kpTry("Could not search", () => kpLoadDocuments()), 250);
  });
  kp$("doc-status").addEventListener("change", () => void kpTry("Could not filter", () => kpLoadDocuments()));
  kp$("doc-new").addEventListener("click", () => kpShowDocPane("form"));
  kp$("doc-form-cancel").addEventListener("click", () => kpShowDocPane(kpCurrentDocument ? "detail" : "empty"));
  const form = kp$<HTMLFormElement>("doc-form");
  const photos = form.elements.namedItem("images") as HTMLInputElement;
  photos.addEventListener("change", () => {
    const box = kp$("doc-photo-descriptions");
    box.replaceChildren(
      ...Array.from(photos.files ?? []).map((f, i) =>
        kpEl(
          "label",
          {},
          `What "${f.name}" shows (who, where)`,
          kpEl("input", { name: "photo_description", "data-index": String(i), maxlength: "1000", placeholder: "Leo with his bicycle in the garden" }),
        ),
      ),
    );
  });
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const submit = form.querySelector<HTMLButtonElement>("button[type=submit]");
    if (submit) submit.disabled = true;
    void kpTry("Could not upload", () => kpUploadDocument(form)).finally(() => {
      if (submit) submit.disabled = false;
    });
  });
}
