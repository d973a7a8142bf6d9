// provledger console: counts citation engagement. The pages work without this script;
// it only reports a citation expanded in place or followed to its source.
(function () {
  "use strict";
  var tokenMeta = document.querySelector('meta[name="csrf-token"]');
  var rootMeta = document.querySelector('meta[name="console-root"]');
  if (!tokenMeta || !rootMeta) {
    return;
  }
  var token = tokenMeta.getAttribute("content");
  var root = rootMeta.getAttribute("content");

  function report(kind, claim, source) {
    if (!claim || !source) {
      return;
    }
    fetch(root + "/engagement", {
      method: "POST",
      credentials: "same-origin",
      keepalive: true,
      headers: {"Content-Type": "application/json", "X-CSRF-Token": token},
      body: JSON.stringify({kind: kind, claim_id: claim, source_id: source})
    }).catch(function () { /* a lost count is not worth an error */ });
  }

  function claimOf(details) {
    var claim = details.closest("[data-claim]");
    return claim ? claim.dataset.claim : null;
  }

  document.querySelectorAll("details.citation").forEach(function (details) {
    var counted = false;
    details.addEventListener("toggle", function () {
      if (details.open && !counted) {
        counted = true;
        report("expand", claimOf(details), details.dataset.source);
      }
    });
  });

  document.querySelectorAll("details.citation a.follow").forEach(function (link) {
    var details = link.closest("details.citation");
    link.addEventListener("click", function () {
      report("follow", claimOf(details), details.dataset.source);
    });
  });
})();
