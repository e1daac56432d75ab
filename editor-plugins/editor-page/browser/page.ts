/**
 * A script on the editor's page itself (Node-RED's `editorTheme.page.scripts`), so it runs
 * before the login as well as after:
 * - the login dialog says what to type (Node-RED shows the theme's login message only for
 *   login strategies with buttons, never above a user name and password);
 * - links to the app's docs (`/docs/...`) in help and info open in a new tab instead of
 *   leaving the editor (Node-RED opens only `http(s):` links in a new tab);
 * - the header links to the caregiver's Knowledge page (`/knowledge/`), where the family's
 *   documents, cards and quizzes are written (docs/knowledge-page.md), and to the Household
 *   page (`/household/`), where devices and keys are set up (docs/household-page.md).
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
  function headerLink(id: string, href: string, title: string, text: string): HTMLLIElement {
    const a = document.createElement("a");
    a.id = id;
    a.className = "button";
    a.href = href;
    a.target = "_blank";
    a.rel = "noopener";
    a.title = title;
    a.textContent = text;
    a.style.cssText = "padding:0 12px;width:auto";
    const li = document.createElement("li");
    li.appendChild(a);
    return li;
  }
  function addPageLinks(toolbar: Element): void {
    if (document.getElementById("careflow-knowledge-link")) return;
    const knowledge = headerLink("careflow-knowledge-link", "/knowledge/", "The family's documents, cards and quizzes", "Knowledge");
    const household = headerLink("careflow-household-link", "/household/", "The household's devices, keys and who changed what", "Household");
    toolbar.insertBefore(household, toolbar.firstChild);
    toolbar.insertBefore(knowledge, household);
  }

  new MutationObserver(() => {
    const fields = document.getElementById("node-dialog-login-fields");
    if (fields && document.getElementById("node-dialog-login-username")) showLoginMessage(fields);
    const toolbar = document.querySelector("#red-ui-header .red-ui-header-toolbar");
    if (toolbar) addPageLinks(toolbar);
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
