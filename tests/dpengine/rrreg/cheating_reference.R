# Reference values for tests/dpengine/test_cheating.py (RRreg 0.7.5, R 4.2, Debian).
# Run: R_LIBS_USER=/tmp/rlib Rscript cheating_reference.R  (after /work/shared/r/install.sh)
# Prints one tuple per seed: model, seed, p1, p2, n1, yes1, n2, yes2, RRuni estimates and SEs
# (CDM: pi, piSE, beta, betaSE, gamma, gammaSE; SLD: pi, piSE, t, tSE).
suppressPackageStartupMessages(library(RRreg))
# One row per seed: RRgen data, then RRuni on it; counts and estimates at 17 digits.
configs <- list(
  # model, n, p1, p2, pi, complyRates (carriers, non-carriers), groupRatio
  list("CDM", 300, .2, .8, .3, c(.8, 1), .5), list("CDM", 300, .3, .7, .2, c(.9, 1), .5),
  list("CDM", 400, .25, .75, .4, c(.7, 1), .5), list("CDM", 500, .1, .6, .25, c(.8, .9), .5),
  list("CDM", 600, .2, .5, .3, c(1, .8), .4), list("CDM", 800, .4, .9, .15, c(.8, 1), .5),
  list("CDM", 1000, .2, .8, .1, c(.6, 1), .6), list("CDM", 1000, .25, .75, .35, c(.9, .9), .5),
  list("CDM", 1200, .3, .6, .2, c(.8, 1), .5), list("CDM", 1500, .15, .85, .3, c(.7, .95), .5),
  list("CDM", 1500, .6, .2, .25, c(.8, 1), .5), list("CDM", 2000, .2, .8, .05, c(.8, 1), .5),
  list("CDM", 2000, .35, .65, .4, c(.85, .9), .45), list("CDM", 2500, .1, .9, .2, c(.75, 1), .5),
  list("CDM", 3000, .2, .8, .3, c(.8, 1), .5), list("CDM", 3000, .25, .5, .15, c(.9, .95), .5),
  list("CDM", 350, .2, .7, .5, c(.8, .9), .5), list("CDM", 450, .3, .8, .3, c(.6, .9), .5),
  list("CDM", 700, .15, .55, .2, c(.8, .85), .5), list("CDM", 900, .5, .8, .1, c(.8, .9), .5),
  list("CDM", 1800, .2, .6, .45, c(.8, .95), .5), list("CDM", 2800, .3, .9, .25, c(.7, .9), .55),
  list("SLD", 300, .2, .8, .3, c(.8, 1), .5), list("SLD", 300, .3, .7, .4, c(.7, 1), .5),
  list("SLD", 400, .25, .75, .35, c(.9, 1), .5), list("SLD", 500, .2, .6, .25, c(.8, 1), .5),
  list("SLD", 600, .1, .7, .3, c(.6, 1), .4), list("SLD", 800, .3, .9, .2, c(.8, 1), .5),
  list("SLD", 1000, .2, .8, .15, c(.75, 1), .6), list("SLD", 1000, .25, .75, .45, c(.85, 1), .5),
  list("SLD", 1200, .4, .8, .3, c(.7, 1), .5), list("SLD", 1500, .15, .85, .25, c(.9, 1), .5),
  list("SLD", 1500, .8, .2, .35, c(.8, 1), .5), list("SLD", 2000, .2, .8, .1, c(.7, 1), .5),
  list("SLD", 2000, .35, .65, .4, c(.8, 1), .45), list("SLD", 2500, .1, .9, .2, c(.75, 1), .5),
  list("SLD", 3000, .2, .8, .3, c(.8, 1), .5), list("SLD", 3000, .3, .6, .2, c(.9, 1), .5),
  list("SLD", 350, .2, .7, .5, c(.8, 1), .5), list("SLD", 450, .3, .8, .35, c(.6, 1), .5),
  list("SLD", 700, .15, .55, .3, c(.8, 1), .5), list("SLD", 900, .5, .9, .25, c(.7, 1), .5),
  list("SLD", 1800, .2, .6, .45, c(.85, 1), .5), list("SLD", 2800, .3, .9, .25, c(.7, 1), .55),
  list("CDM", 320, .2, .8, .3, c(.6, .9), .5), list("CDM", 640, .25, .75, .2, c(.7, .85), .5),
  list("CDM", 1100, .1, .7, .35, c(.7, .9), .5), list("CDM", 2200, .3, .8, .25, c(.75, .9), .5),
  list("SLD", 330, .25, .75, .3, c(.6, 1), .5), list("SLD", 1300, .2, .7, .35, c(.7, 1), .5),
  list("SLD", 2600, .3, .8, .25, c(.75, 1), .5)
)
f <- function(x) formatC(x, digits = 17, format = "g")
for (i in seq_along(configs)) {
  cf <- configs[[i]]
  set.seed(2700 + i)
  d <- RRgen(n = cf[[2]], pi.true = cf[[5]], model = cf[[1]], p = c(cf[[3]], cf[[4]]),
             complyRates = cf[[6]], groupRatio = cf[[7]])
  r <- RRuni(response = d$response, model = cf[[1]], p = c(cf[[3]], cf[[4]]), group = d$group)
  n1 <- sum(d$group == 1); y1 <- sum(d$response[d$group == 1])
  n2 <- sum(d$group == 2); y2 <- sum(d$response[d$group == 2])
  est <- if (cf[[1]] == "CDM") c(r$pi, r$piSE, r$beta, r$betaSE, r$gamma, r$gammaSE) else
    c(r$pi, r$piSE, r$t, r$tSE)
  cat(sprintf('("%s", %d, %s, %s, %d, %d, %d, %d, (%s)),\n', cf[[1]], 2700 + i, cf[[3]], cf[[4]],
              n1, y1, n2, y2, paste(f(est), collapse = ", ")))
}
