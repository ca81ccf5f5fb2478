from django.core.management.base import BaseCommand

from privacy.services.retention import retention_apply


class Command(BaseCommand):
    help = "Apply the retention schedule now (privacy.schedule): minimise and delete."

    def handle(self, *args, **options):
        report = retention_apply()
        for key, count in report.counts.items():
            self.stdout.write(f"{key}: {count}")
        self.stdout.write(f"held back by open holds: {report.held}")
        self.stdout.write(f"invoices past HMRC's period, for staff: {report.invoices_past_period}")
