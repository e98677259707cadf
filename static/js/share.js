// Share page: a "Copy link" button (progressive enhancement; the link is selectable without it).
const button = document.getElementById("copy-link");
const input = document.getElementById("share-url");
const status = document.getElementById("copy-status");

if (button && input && navigator.clipboard) {
  button.hidden = false;
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(input.value);
      status.textContent = button.dataset.copied;
    } catch {
      input.select();
      status.textContent = button.dataset.failed;
    }
  });
}
