// Progressive enhancement for every page: copy buttons and confirmation dialogs. Without this script the
// pages still work (forms submit directly); with it, destructive forms ask first.
(function () {
  'use strict';

  function announce(button, text) {
    var original = button.getAttribute('data-label') || button.textContent;
    button.setAttribute('data-label', original);
    button.textContent = text;
    setTimeout(function () { button.textContent = original; }, 2000);
  }

  document.addEventListener('click', function (event) {
    var button = event.target.closest && event.target.closest('[data-copy]');
    if (!button) return;
    var input = document.querySelector(button.getAttribute('data-copy'));
    if (!input) return;
    var value = input.value;
    var done = function () { announce(button, 'Copied'); };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(value).then(done, function () { input.select(); announce(button, 'Press Ctrl+C'); });
    } else {
      input.focus();
      input.select();
      try { document.execCommand('copy'); done(); } catch (e) { announce(button, 'Press Ctrl+C'); }
    }
  });

  // One modal <dialog> reused by every form that carries data-confirm. Cancel has the focus first, so
  // Enter never confirms a destructive action by accident; Escape closes it (native behaviour).
  var dialog;
  function confirmDialog() {
    if (dialog) return dialog;
    dialog = document.createElement('dialog');
    dialog.className = 'confirm';
    dialog.setAttribute('aria-labelledby', 'confirm-title');
    dialog.innerHTML = '<form method="dialog"><h2 id="confirm-title">Are you sure?</h2><p class="confirm-text"></p>' +
      '<div class="actions"><button value="cancel" class="button ghost" autofocus>Cancel</button> ' +
      '<button value="confirm" class="button danger confirm-button">Confirm</button></div></form>';
    document.body.appendChild(dialog);
    return dialog;
  }

  document.addEventListener('submit', function (event) {
    var form = event.target;
    if (!form.hasAttribute || !form.hasAttribute('data-confirm')) return;
    event.preventDefault();
    var d = confirmDialog();
    d.querySelector('.confirm-text').textContent = form.getAttribute('data-confirm');
    var submit = form.querySelector('[type=submit]');
    d.querySelector('.confirm-button').textContent = submit ? submit.textContent.trim() : 'Confirm';
    d.returnValue = '';
    d.onclose = function () {
      if (d.returnValue === 'confirm') form.submit();
      else if (submit) submit.focus();
    };
    d.showModal();
  });
})();
