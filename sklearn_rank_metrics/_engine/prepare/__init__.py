"""Input -> prepared ranking: the data arguments made into what the run reads.

``_prepare`` is the stage's entry (:func:`~._prepare.prepare`);
``_validation`` checks the data arguments; ``_factorize`` codes query ids
and ``_labels`` the labels; ``_sort`` ranks documents by query and score
(or finds them ranked already); ``_segments`` cuts the ranking into chunks
of queries, with their heads and the label histogram. ``_arrays`` holds the
array helpers they (and the kernels) share; ``_hashing`` the one hashing
toolkit, also used to join a TREC run with its qrels.
"""
