/**
 * A script on the editor's page itself (Node-RED's `editorTheme.page.scripts`), so it runs
 * before the login as well as after:
 * - the login dialog says what to type (Node-RED shows the theme's login message only for
 *   login strategies with buttons, never above a user name and password);
 * - links to the app's docs (`/docs/...`) in help and info open in a new tab instead of
 *   leaving the editor (Node-RED opens only `http(s):` links in a new tab);
 * - the header links to the caregiver's Knowledge page (`/knowledge/`), where the family's
 *   documents, cards and quizzes are written (docs/knowledge-page.md).
 */
(() => {
  /** What `auth/login` answers (Node-RED's login info). */
  interface LoginInfo {
    type?: string;
    loginMessage?: string;
  }

  function showLoginMessage(fields: HTMLElement): void {
    if (fields.getAttribute("data-careflow-message")) return;
    fields.setAttribute("data-careflow-message", "pending");
    fetch("auth/login", { headers: { "Node-RED-API-Version": "v2" } })
      .then((r) => r.json() as Promise<LoginInfo | null>)
      .then((info) => {
        if (!info || info.type !== "credentials" || !info.loginMessage) return;
        const note = document.createElement("div");
        note.className = "form-row careflow-login-message";
        note.style.cssText = "margin-bottom:12px;line-height:1.4";
        note.textContent = info.loginMessage;
        fields.insertBefore(note, fields.firstChild);
      })
      .catch(() => {});
  }
  function addKnowledgeLink(toolbar: Element): void {
    if (document.getElementById("careflow-knowledge-link")) return;
    const a = document.createElement("a");
    a.id = "careflow-knowledge-link";
    a.className = "button";
    a.href = "/knowledge/";
    a.target = "_blank";
    a.rel = "noopener";
    a.title = "The family's documents, cards and quizzes";
    a.textContent = "Knowledge";
    a.style.cssText = "padding:0 12px;width:auto";
    const li = document.createElement("li");
    li.appendChild(a);
    toolbar.insertBefore(li, toolbar.firstChild);
  }

  new MutationObserver(() => {
    const fields = document.getElementById("node-dialog-login-fields");
    if (fields && document.getElementById("node-dialog-login-username")) showLoginMessage(fields);
    const toolbar = document.querySelector("#red-ui-header .red-ui-header-toolbar");
    if (toolbar) addKnowledgeLink(toolbar);
  }).observe(document.documentElement, { childList: true, subtree: true });

  document.addEventListener(
    "click",
    (e) => {
      const a = e.target instanceof Element ? e.target.closest("a[href]") : null;
      if (!a) return;
      const href = a.getAttribute("href");
      if (href === null || !/^\/docs\//.test(href)) return;
      e.preventDefault();
      e.stopPropagation();
      window.open(href, "_blank", "noopener");
    },
    true,
  );
})();
