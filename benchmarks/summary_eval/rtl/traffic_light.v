module traffic_light #(
    parameter GREEN_TICKS  = 8,
    parameter YELLOW_TICKS = 2
) (
    input  wire       clk,
    input  wire       rst,
    input  wire       side_car,
    output reg  [2:0] main_ryg,   // {red, yellow, green}
    output reg  [2:0] side_ryg
);
    localparam [1:0] MAIN_GREEN = 2'd0, MAIN_YELLOW = 2'd1, SIDE_GREEN = 2'd2, SIDE_YELLOW = 2'd3;

    reg [1:0] state;
    reg [7:0] timer;

    always @(posedge clk) begin
        if (rst) begin
            state <= MAIN_GREEN;
            timer <= 8'd0;
        end else begin
            case (state)
                MAIN_GREEN:
                    if (timer < GREEN_TICKS - 1) timer <= timer + 8'd1;
                    else if (side_car) begin state <= MAIN_YELLOW; timer <= 8'd0; end
                MAIN_YELLOW:
                    if (timer == YELLOW_TICKS - 1) begin state <= SIDE_GREEN; timer <= 8'd0; end
                    else timer <= timer + 8'd1;
                SIDE_GREEN:
                    if (timer == GREEN_TICKS - 1) begin state <= SIDE_YELLOW; timer <= 8'd0; end
                    else timer <= timer + 8'd1;
                default:
                    if (timer == YELLOW_TICKS - 1) begin state <= MAIN_GREEN; timer <= 8'd0; end
                    else timer <= timer + 8'd1;
            endcase
        end
    end

    always @(*) begin
        case (state)
            MAIN_GREEN:  begin main_ryg = 3'b001; side_ryg = 3'b100; end
            MAIN_YELLOW: begin main_ryg = 3'b010; side_ryg = 3'b100; end
            SIDE_GREEN:  begin main_ryg = 3'b100; side_ryg = 3'b001; end
            default:     begin main_ryg = 3'b100; side_ryg = 3'b010; end
        endcase
    end
endmodule
