// Starts Swagger UI on /docs (a file, not an inline script, so the page keeps a strict CSP).
window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    deepLinking: false, // its links sat inside the operations' buttons: a control inside a control
    validatorUrl: null, // never ask validator.swagger.io (another origin) about the schema
    onComplete: function () {
      // The title is the page's h1; the groups of operations come next, so they are its second level.
      document.querySelectorAll("h3.opblock-tag, section.models > h4").forEach(function (heading) {
        heading.setAttribute("role", "heading");
        heading.setAttribute("aria-level", "2");
      });
      const about = document.querySelector(".information-container");  // the title and version: a landmark too
      if (about) {
        about.setAttribute("role", "region");
        about.setAttribute("aria-label", "About this API");
      }
    },
  });
});
