# Reference maxima for the boundary data sets of tests/dpengine/test_cheating.py (RRreg 0.7.5).
# Run: R_LIBS_USER=/tmp/rlib Rscript cheating_boundary.R
# Prints model, seed, p1, p2, counts, the maximising (pi, beta, gamma) or (pi, t), and RRreg's log-likelihood there.
suppressPackageStartupMessages(library(RRreg))
# Boundary data sets: RRreg's own log-likelihood (RRreg:::RRuni.ll), with its penalty for
# invalid points (+1e6, which a maximiser prefers) replaced by -1e300, maximised along each
# edge of the parameter space with optimize(tol = 1e-13).
cases <- list(
  list("CDM", 2701, .2, .8, 150, 59, 150, 129), list("CDM", 2702, .3, .7, 150, 63, 150, 114),
  list("CDM", 2709, .3, .6, 600, 238, 600, 403), list("SLD", 2728, .3, .9, 400, 304, 400, 100),
  list("SLD", 2732, .15, .85, 750, 663, 750, 238), list("SLD", 2742, .5, .9, 450, 263, 450, 109)
)
f <- function(x) formatC(x, digits = 17, format = "g")
for (cs in cases) {
  model <- cs[[1]]; p <- c(cs[[3]], cs[[4]])
  response <- c(rep(1, cs[[6]]), rep(0, cs[[5]] - cs[[6]]), rep(1, cs[[8]]), rep(0, cs[[7]] - cs[[8]]))
  group <- c(rep(1, cs[[5]]), rep(2, cs[[7]]))
  ll <- function(par) {
    v <- RRreg:::RRuni.ll(par, model, response, p, group, 2)
    if (v == 1e6) -1e300 else v
  }
  # The maximum lies on an edge of the parameter space: optimize() along each edge.
  edges <- if (model == "CDM") {
    # par = (pi, beta); gamma = 1 - pi - beta
    list(function(s) c(s, 1 - s), function(s) c(0, s), function(s) c(s, 0))
  } else {
    # par = (pi, t)
    list(function(s) c(s, 1), function(s) c(s, 0), function(s) c(1, s))
  }
  best <- NULL
  for (edge in edges) {
    oo <- optimize(function(s) ll(edge(s)), c(0, 1), maximum = TRUE, tol = 1e-13)
    if (is.null(best) || oo$objective > best$value) best <- list(par = edge(oo$maximum), value = oo$objective)
  }
  par <- best$par
  if (model == "CDM") par <- c(par, 1 - sum(par))
  cat(sprintf('("%s", %d, %s, %s, %d, %d, %d, %d, (%s), %s),\n', model, cs[[2]], cs[[3]], cs[[4]],
              cs[[5]], cs[[6]], cs[[7]], cs[[8]], paste(f(par), collapse = ", "), f(best$value)))
}
