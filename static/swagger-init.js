// Starts Swagger UI on /docs (a file, not an inline script, so the page keeps a strict CSP).
window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    deepLinking: true,
    validatorUrl: null, // never ask validator.swagger.io (another origin) about the schema
  });
});
