// Address suggestions for inputs marked data-suggest: as the passenger types, ask the
// form's data-suggest-url for places and offer them through the input's <datalist>.
(function () {
  "use strict";
  var form = document.querySelector("form[data-suggest-url]");
  if (!form || !window.fetch) return;
  var url = form.getAttribute("data-suggest-url");
  form.querySelectorAll("input[data-suggest]").forEach(function (input) {
    var list = document.getElementById(input.getAttribute("list"));
    var timer = null;
    var asked = "";
    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () {
        var q = input.value.trim();
        if (q.length < 2 || q === asked) return;
        asked = q;
        fetch(url + "?q=" + encodeURIComponent(q), { headers: { Accept: "application/json" } })
          .then(function (response) { return response.ok ? response.json() : { suggestions: [] }; })
          .then(function (body) {
            if (q !== asked) return; // an answer to an older question
            list.replaceChildren.apply(list, body.suggestions.map(function (s) {
              var option = document.createElement("option");
              option.value = s.label;
              option.label = s.kindLabel;
              return option;
            }));
          })
          .catch(function () { /* suggestions are a help, never a need */ });
      }, 150);
    });
  });
})();
