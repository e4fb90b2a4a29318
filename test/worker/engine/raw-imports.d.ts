// Vite's ?raw suffix imports a fixture file as text (used for YAML fixtures).
declare module "*?raw" {
  const text: string;
  export default text;
}
