"""The downloads: everything a researcher takes away from a survey.

- ``csv``: the CSV files (summary, raw reports, grouping answers), streamed;
- ``r``: the raw reports for R, and the R code that fits the regression with ``rr``;
- ``codebook``: what each column means, for every download;
- ``bundles``: the ZIP and Excel downloads that put the files and their codebook together;
- ``spss_stata``: the raw reports as labelled SPSS (.sav) and Stata (.dta) files, written as
  the rows come by ``sav`` (the SPSS system file) and ``dta`` (the Stata 118 file).

Import the module you need (``from surveys.exports import csv as csv_export``). How the
interface and every export name the questions (Q1…, G1…) is a read, in
surveys/selectors/columns.py.
"""
