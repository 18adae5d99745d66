"""The authors' result files: recognised where ``evaluate`` meets them (``authors_files``), converted
to a submission (``import_results``) and written from one (``export_results``)."""
