// Applies the reader's remembered colour theme before the first paint (loaded without
// `defer` on purpose, so a dark-theme reader never sees a white flash). portal.js owns the toggle.
(function () {
  "use strict";
  try {
    var theme = window.localStorage.getItem("faq-theme");
    if (theme === "dark" || theme === "light") document.documentElement.setAttribute("data-theme", theme);
  } catch (e) {
    // Storage blocked (privacy settings): follow the system's preference.
  }
})();
