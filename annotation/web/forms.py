from django import forms

from annotation.services.datasets import IMPORTERS


class ImportForm(forms.Form):
    format = forms.ChoiceField(choices=[(name, name) for name in sorted(IMPORTERS)])
    file = forms.FileField()
    skip_bad_rows = forms.BooleanField(
        required=False, help_text="Import the good rows and list the bad ones, instead of importing nothing."
    )
