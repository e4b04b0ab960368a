import { KikwiflowDefinitionsScreen } from "@/components/kikwiflow/definitions-screen";
import { KikwiflowSectionPage, kikwiflowSectionMetadata } from "@/app/kikwiflow/section-page";

export const generateMetadata = () => kikwiflowSectionMetadata("definitions");

export default function KikwiflowDefinitionsPage() {
  return (
    <KikwiflowSectionPage section="definitions">
      <KikwiflowDefinitionsScreen />
    </KikwiflowSectionPage>
  );
}
