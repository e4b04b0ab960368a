import { KikwiflowAttentionScreen } from "@/components/kikwiflow/attention-screen";
import { KikwiflowSectionPage, kikwiflowSectionMetadata } from "@/app/kikwiflow/section-page";

export const generateMetadata = () => kikwiflowSectionMetadata("attention");

export default function KikwiflowAttentionPage() {
  return (
    <KikwiflowSectionPage section="attention">
      <KikwiflowAttentionScreen />
    </KikwiflowSectionPage>
  );
}
