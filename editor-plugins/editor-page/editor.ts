/**
 * A script on the editor's page itself (Node-RED's `editorTheme.page.scripts`), so it runs
 * before the login as well as after:
 * - the login dialog says what to type (Node-RED shows the theme's login message only for
 *   login strategies with buttons, never above a user name and password);
 * - links to the app's docs (`/docs/...`) in help and info open in a new tab instead of
 *   leaving the editor (Node-RED opens only `http(s):` links in a new tab).
 */
export const EDITOR_PAGE_SCRIPT = String.raw`
(function () {
  function showLoginMessage(fields) {
    if (fields.getAttribute("data-careflow-message")) return;
    fields.setAttribute("data-careflow-message", "pending");
    fetch("auth/login", { headers: { "Node-RED-API-Version": "v2" } })
      .then(function (r) { return r.json(); })
      .then(function (info) {
        if (!info || info.type !== "credentials" || !info.loginMessage) return;
        var note = document.createElement("div");
        note.className = "form-row careflow-login-message";
        note.style.cssText = "margin-bottom:12px;line-height:1.4";
        note.textContent = info.loginMessage;
        fields.insertBefore(note, fields.firstChild);
      })
      .catch(function () {});
  }
  new MutationObserver(function () {
    var fields = document.getElementById("node-dialog-login-fields");
    if (fields && document.getElementById("node-dialog-login-username")) showLoginMessage(fields);
  }).observe(document.documentElement, { childList: true, subtree: true });

  document.addEventListener("click", function (e) {
    var a = e.target && e.target.closest ? e.target.closest("a[href]") : null;
    if (!a) return;
    var href = a.getAttribute("href");
    if (!/^\/docs\//.test(href)) return;
    e.preventDefault();
    e.stopPropagation();
    window.open(href, "_blank", "noopener");
  }, true);
})();
`;
