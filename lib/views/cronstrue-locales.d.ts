// cronstrue's locale files (cronstrue/locales/<name>.js) ship no types: each registers itself into
// cronstrue when loaded and exports nothing the console reads (lib/views/cron-words.ts).
declare module "cronstrue/locales/*";
