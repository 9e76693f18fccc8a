"""Input -> prepared ranking: validate, factorize, sort, code the labels (see ``_prepare``)."""
