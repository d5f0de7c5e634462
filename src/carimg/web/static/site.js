// Copy buttons: <button data-copy="#element-id">Copy</button> copies that element's text.
document.addEventListener("click", async (event) => {
  const button = event.target.closest("[data-copy]");
  if (!button) return;
  const source = document.querySelector(button.dataset.copy);
  if (!source) return;
  const text = source.value !== undefined ? source.value : source.textContent;
  const label = button.textContent;
  try {
    await navigator.clipboard.writeText(text.trim());
    button.textContent = "Copied";
  } catch {
    if (source.select) source.select();
    button.textContent = "Press Ctrl+C";
  }
  const status = document.getElementById(button.dataset.status || "copy-status");
  if (status) status.textContent = button.textContent === "Copied" ? "Copied to the clipboard." : "";
  setTimeout(() => { button.textContent = label; }, 2000);
});
