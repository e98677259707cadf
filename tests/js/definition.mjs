// A public survey definition as the respondent page reads it (templates/respond/respond.html
// embeds it; surveys/api serializes it), with one question of each kind and a grouping
// question, for the tests of the page's modules.

export const FINGERPRINT = "f".repeat(32);

/** `{survey, submit_url, definition_url, preview}`; `survey` members replaced by `changes`. */
export function definition(changes = {}) {
  return {
    survey: {
      slug: "k3J9aQ",
      language: "en",
      p_truth: 0.5,
      p_forced_yes: 0.5,
      design_fingerprint: FINGERPRINT,
      shared_devices: false,
      pilot: false,
      // Wider than any body below (each test checks that every body has exactly this length).
      submission_length: 400,
      questions: [
        { id: 11, text: "Have you cheated?", type: "yes_no", required: true },
        {
          id: 12,
          text: "Have you lied to your manager?",
          type: "yes_no",
          required: false,
          design: { kind: "warner", p: 0.75 },
        },
        {
          id: 13,
          text: "Which did you take most?",
          type: "choice",
          required: true,
          options: ["None", "Pens", "Paper"],
          epsilon: 1,
        },
        {
          id: 14,
          text: "Drinks in a week?",
          type: "numeric",
          required: false,
          min: 0,
          max: 5,
          epsilon: 1,
          report_min: -60,
          report_max: 65,
        },
      ],
      grouping_questions: [
        {
          id: 7,
          text: "Your age",
          required: false,
          options: [
            { id: 70, label: "Under 30" },
            { id: 71, label: "30 or over" },
          ],
        },
      ],
      ...changes,
    },
    submit_url: "/api/v1/public/surveys/k3J9aQ/responses/",
    definition_url: "/api/v1/public/surveys/k3J9aQ/",
    preview: false,
  };
}
