"""The downloads: everything a researcher takes away from a survey.

- ``csv``: the CSV files (summary, raw reports, grouping answers), streamed;
- ``r``: the raw reports for R, and the R code that fits the regression with ``rr``;
- ``codebook``: what each column means, for every download;
- ``columns``: how the interface and every export name the questions (Q1…, G1…);
- ``bundles``: the ZIP and Excel downloads that put the files and their codebook together;
- ``spss_stata``: the raw reports as labelled SPSS (.sav) and Stata (.dta) files.

Import the module you need (``from surveys.exports import csv as csv_export``): this package
imports none of them itself, because the selectors read ``columns`` and ``csv`` reads the
selectors.
"""
