"""The yardstick: a minimal DRF view that validates a quote-like body and inserts one row.

The quote and booking endpoints are measured against it in the same run, on the same
server, so the ratio says what our own work costs, whatever the machine.
"""

from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from bench.reference.models import ReferenceRow


class ReferenceBodySerializer(serializers.Serializer):
    pickup = serializers.CharField(max_length=300)
    dropoff = serializers.CharField(max_length=300)
    passengers = serializers.IntegerField(min_value=1, max_value=8, default=1)
    departAt = serializers.DateTimeField(required=False)
    vehicleType = serializers.CharField(required=False)


class ReferenceView(APIView):
    authentication_classes: list = []
    permission_classes: list = []

    def post(self, request):
        serializer = ReferenceBodySerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        row = ReferenceRow.objects.create(
            pickup=data["pickup"], dropoff=data["dropoff"], passengers=data["passengers"]
        )
        return Response({"id": row.pk}, status=200)
